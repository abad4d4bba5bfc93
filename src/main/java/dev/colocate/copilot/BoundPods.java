package dev.colocate.copilot;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the pods bound to one node hold there: the sum of the requests of those that count ({@link Ledger#counts}) and
 * their uids, by which a reservation is known to be bound. Pure; the copilot keeps one per node until a pod event
 * touches the node ({@link ClusterView#boundPods}), so that filter reads a sum per candidate rather than every pod of
 * every candidate.
 */
public record BoundPods(Resources requests, Set<String> uids) {

    public static BoundPods of(String nodeName, Collection<Pod> podsOnNode) {
        List<Pod> counted = podsOnNode.stream().filter(p -> Ledger.counts(p, nodeName, SharedNodes::isSlurmd))
                .toList();
        return new BoundPods(Ledger.kubernetes(counted, List.of()), counted.stream()
                .map(p -> p.getMetadata().getUid()).filter(Objects::nonNull).collect(Collectors.toUnmodifiableSet()));
    }
}
