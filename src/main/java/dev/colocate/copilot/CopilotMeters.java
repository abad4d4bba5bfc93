package dev.colocate.copilot;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The copilot's meters, in one place. */
@ApplicationScoped
public class CopilotMeters {

    private final MeterRegistry registry;
    private final Counter shareWrites;
    private final Timer syncLag;
    private final AtomicInteger overcommitted = new AtomicInteger();
    private final Map<String, NodeLedger> ledgers = new ConcurrentHashMap<>();

    public CopilotMeters(MeterRegistry registry) {
        this.registry = registry;
        this.shareWrites = Counter.builder("colocate.slurm.share.writes")
                .description("k8scpu/k8smemory count writes to Slurm nodes").register(registry);
        this.syncLag = Timer.builder("colocate.sync.lag")
                .description("From a Kubernetes or Slurm event to the Slurm count written for it")
                .publishPercentiles(0.5, 0.99).register(registry);
        Gauge.builder("colocate.overcommitted.nodes", overcommitted, AtomicInteger::get)
                .description("Shared nodes where Kubernetes and Slurm together hold more than the node has")
                .register(registry);
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
        Gauge.builder("colocate.node.allocated", ledgers, m -> m.containsKey(node) ? value.applyAsDouble(m.get(node))
                        : Double.NaN)
                .description("What each owner holds on a shared node (cpu in cores, memory in bytes)")
                .tags(Tags.of("node", node, "owner", owner, "resource", resource, "unit", unit))
                .register(registry);
    }

    /** Forgets a node that is no longer shared. */
    public void forget(String node) {
        ledgers.remove(node);
        registry.find("colocate.node.allocated").tag("node", node).meters().forEach(registry::remove);
        overcommitted.set((int) ledgers.values().stream().filter(NodeLedger::overcommitted).count());
    }
}
