package dev.colocate.copilot;

import dev.colocate.slurm.SlurmNode;
import java.time.Instant;
import java.util.Map;

/**
 * Slurm as the last poll saw it: every node by name, or why Slurm could not be read.
 *
 * @param problem   null when the poll succeeded
 * @param startedAt slurmctld's start time, to detect a restart
 */
public record SlurmView(Map<String, SlurmNode> nodes, String problem, Instant startedAt) {

    public static final SlurmView UNKNOWN = new SlurmView(Map.of(), "Slurm has not been polled yet", Instant.EPOCH);

    public boolean reachable() {
        return problem == null;
    }

    /** This view with a node's k8s counts as just written, until the next poll reads them back. */
    public SlurmView withShare(String alias, SlurmShare share) {
        SlurmNode n = nodes.get(alias);
        if (n == null) {
            return this;
        }
        Map<String, Long> gres = new java.util.HashMap<>(n.gres());
        gres.put(SlurmNode.K8S_CPU, share.cpuCores());
        gres.put(SlurmNode.K8S_MEMORY, share.memoryMb());
        Map<String, SlurmNode> all = new java.util.HashMap<>(nodes);
        all.put(alias, new SlurmNode(n.name(), n.state(), n.cpus(), n.realMemoryMb(), n.allocCpus(),
                n.allocMemoryMb(), gres, n.gresUsed(), n.reason()));
        return new SlurmView(Map.copyOf(all), problem, startedAt);
    }

    /** This view with a node's allocation changed by a hold just granted (positive) or cancelled (negative). */
    public SlurmView withAllocated(String alias, long cpus, long memoryMb, boolean gres) {
        SlurmNode n = nodes.get(alias);
        if (n == null) {
            return this;
        }
        Map<String, Long> used = new java.util.HashMap<>(n.gresUsed());
        if (gres) {
            used.merge(SlurmNode.K8S_CPU, cpus, Long::sum);
            used.merge(SlurmNode.K8S_MEMORY, memoryMb, Long::sum);
            used.replaceAll((k, v) -> Math.max(0, v));
        }
        Map<String, SlurmNode> all = new java.util.HashMap<>(nodes);
        all.put(alias, new SlurmNode(n.name(), n.state(), n.cpus(), n.realMemoryMb(),
                (int) Math.max(0, n.allocCpus() + cpus), Math.max(0, n.allocMemoryMb() + memoryMb), n.gres(), used,
                n.reason()));
        return new SlurmView(Map.copyOf(all), problem, startedAt);
    }
}
