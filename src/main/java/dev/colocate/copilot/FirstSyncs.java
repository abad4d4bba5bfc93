package dev.colocate.copilot;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Which shared nodes have been synced at least once since this copilot started (the sync went through, or failed and
 * said why on the node). Until each node known at the start has been, the copilot is not ready: a bind in its first
 * seconds would find no GenericNode and a filter would judge against books no sync has checked. Once all have been,
 * it stays ready; a node that joins later is synced within the coalescing window of its first event.
 */
@ApplicationScoped
public class FirstSyncs {

    private final Set<String> synced = ConcurrentHashMap.newKeySet();
    private volatile boolean complete;

    /** A sync of the node ended, either way. */
    void synced(String nodeName) {
        if (!complete) {
            synced.add(nodeName);
        }
    }

    /**
     * Of the shared nodes, those not synced once yet, sorted; empty from the moment all have been, and then without
     * asking for the shared nodes (a pass over every node), since the extender asks on every call.
     */
    public List<String> pending(Supplier<Collection<String>> sharedNodes) {
        if (complete) {
            return List.of();
        }
        List<String> pending = sharedNodes.get().stream().filter(n -> !synced.contains(n)).sorted().toList();
        if (pending.isEmpty()) {
            complete = true;
            synced.clear();
        }
        return pending;
    }
}
