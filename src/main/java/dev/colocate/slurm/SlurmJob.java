package dev.colocate.slurm;

import java.util.Set;

/**
 * One Slurm job, as far as colocate needs it.
 *
 * @param state       e.g. {@code PENDING}, {@code RUNNING}
 * @param reason      why it pends, e.g. {@code Resources} or {@code BadConstraints}; {@code None} when it does not
 * @param nodes       the nodes it runs on, as a Slurm hostlist; empty while it pends
 * @param tresPerNode e.g. {@code gres:k8scpu:3,gres:k8smemory:4000}
 */
public record SlurmJob(long id, String name, String state, String reason, String nodes, String tresPerNode,
        long priority) {

    public boolean isPending() {
        return "PENDING".equals(state);
    }

    public boolean isRunning() {
        return "RUNNING".equals(state);
    }

    /** Whether the job runs on, or was sent to, the named node. */
    public boolean isOn(String node) {
        return Hostlist.expand(nodes).contains(node);
    }

    /** States of jobs that hold or wait for resources. */
    public static final Set<String> ACTIVE = Set.of("PENDING", "RUNNING", "SUSPENDED", "CONFIGURING", "COMPLETING");
}
