package dev.colocate.copilot;

import dev.colocate.metrics.Gauges;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The copilot's meters, in one place; made at start, so that a scrape sees them at zero before any sync. */
@ApplicationScoped
@io.quarkus.runtime.Startup
public class CopilotMeters {

    private final MeterRegistry registry;
    private final Counter shareWrites;
    private final Timer syncLag;
    private final AtomicInteger overcommitted = new AtomicInteger();
    private final Map<String, NodeLedger> ledgers = new ConcurrentHashMap<>();
    private final Map<String, HoldPlanner.Size> waste = new ConcurrentHashMap<>();
    /** Shared nodes by whether Slurm reports them drained (DRAIN), as of their last sync. */
    private final Map<String, Boolean> drained = new ConcurrentHashMap<>();
    private final Counter holdsGranted;
    private final Counter holdsQueued;
    private final Counter holdsRefused;
    private final Counter holdsCancelled;

    public CopilotMeters(MeterRegistry registry) {
        this.registry = registry;
        this.shareWrites = Counter.builder("colocate.slurm.share.writes")
                .description("k8scpu/k8smemory count writes to Slurm nodes").register(registry);
        this.syncLag = Timer.builder("colocate.sync.lag")
                .description("From a Kubernetes or Slurm event to the Slurm count written for it")
                .publishPercentiles(0.5, 0.99).register(registry);
        this.holdsGranted = holdCounter("granted", "Holds Slurm granted at once");
        this.holdsQueued = holdCounter("queued", "Holds queued to wait for room at the top priority");
        this.holdsRefused = holdCounter("refused", "Immediate holds Slurm refused (no room)");
        this.holdsCancelled = holdCounter("cancelled", "Holds the copilot cancelled");
        Gauges.register(registry, "colocate.holds.waste", Tags.of("resource", "cpu", "unit", "cores"), waste,
                m -> m.values().stream().mapToLong(HoldPlanner.Size::cpus).sum(),
                b -> b.description("CPUs held for Kubernetes beyond what it needs, over all shared nodes"));
        Gauges.register(registry, "colocate.holds.waste", Tags.of("resource", "memory", "unit", "bytes"), waste,
                m -> m.values().stream().mapToLong(HoldPlanner.Size::memoryMb).sum() * 1024.0 * 1024.0,
                b -> b.description("Memory held for Kubernetes beyond what it needs, over all shared nodes"));
        Gauges.register(registry, "colocate.overcommitted.nodes", Tags.empty(), overcommitted, AtomicInteger::get,
                b -> b.description("Shared nodes where Kubernetes and Slurm together hold more than the node has"));
        Gauges.register(registry, "colocate.drained.nodes", Tags.empty(), drained,
                m -> m.values().stream().filter(d -> d).count(),
                b -> b.description("Shared nodes Slurm reports drained (sinfo -R says why)"));
    }

    private Counter holdCounter(String outcome, String description) {
        return Counter.builder("colocate.holds").description(description).tag("outcome", outcome)
                .register(registry);
    }

    /** Counts a node sync that failed, by kind ({@code kubernetes} API calls, or {@code other}). */
    public void syncFailed(String kind) {
        Counter.builder("colocate.sync.failures").description("Node syncs that failed; each is retried")
                .tag("kind", kind).register(registry).increment();
    }

    public void holdGranted() {
        holdsGranted.increment();
    }

    public void holdQueued() {
        holdsQueued.increment();
    }

    public void holdRefused() {
        holdsRefused.increment();
    }

    public void holdCancelled() {
        holdsCancelled.increment();
    }

    /** Records what a node holds beyond its need. */
    public void holdWaste(String node, HoldPlanner.Size excess) {
        waste.put(node, excess.atLeastZero());
    }

    public void shareWritten(Duration lag) {
        shareWrites.increment();
        if (lag != null) {
            syncLag.record(lag);
        }
    }

    /** Records a node's books: colocate_node_allocated{node,owner,resource} and the overcommit count. */
    public void ledger(String node, NodeLedger ledger) {
        if (ledgers.put(node, ledger) == null) {
            for (String owner : new String[] {"slurm", "kubernetes"}) {
                gauge(node, owner, "cpu", "cores", l -> (owner.equals("slurm") ? l.slurm() : l.kubernetes())
                        .milliCpu() / 1000.0);
                gauge(node, owner, "memory", "bytes", l -> (owner.equals("slurm") ? l.slurm() : l.kubernetes())
                        .bytes());
            }
        }
        overcommitted.set((int) ledgers.values().stream().filter(NodeLedger::overcommitted).count());
    }

    private void gauge(String node, String owner, String resource, String unit,
            java.util.function.ToDoubleFunction<NodeLedger> value) {
        Gauges.register(registry, "colocate.node.allocated", Tags.of("node", node, "owner", owner, "resource",
                        resource, "unit", unit), ledgers,
                m -> m.containsKey(node) ? value.applyAsDouble(m.get(node)) : Double.NaN,
                b -> b.description("What each owner holds on a shared node (cpu in cores, memory in bytes)"));
    }

    /** Records whether Slurm reports a shared node drained: colocate_node_drained{node} and the drained count. */
    public void drained(String node, boolean isDrained) {
        if (drained.put(node, isDrained) == null) {
            Gauges.register(registry, "colocate.node.drained", Tags.of("node", node), drained,
                    m -> Boolean.TRUE.equals(m.get(node)) ? 1 : 0,
                    b -> b.description("1 while Slurm reports the shared node drained, else 0"));
        }
    }

    /** Forgets a node that is no longer shared. */
    public void forget(String node) {
        ledgers.remove(node);
        drained.remove(node);
        registry.find("colocate.node.drained").tag("node", node).meters().forEach(registry::remove);
        waste.remove(node);
        registry.find("colocate.node.allocated").tag("node", node).meters().forEach(registry::remove);
        overcommitted.set((int) ledgers.values().stream().filter(NodeLedger::overcommitted).count());
    }
}
