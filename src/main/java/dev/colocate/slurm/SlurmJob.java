package dev.colocate.slurm;

import java.util.Set;

/**
 * One Slurm job, as far as colocate needs it.
 *
 * @param state       e.g. {@code PENDING}, {@code RUNNING}
 * @param reason      why it pends, e.g. {@code Resources} or {@code BadConstraints}; {@code None} when it does not
 * @param nodes       the nodes it runs on, as a Slurm hostlist; empty while it pends
 * @param tresPerNode e.g. {@code gres:k8scpu:3,gres:k8smemory:4000}
 * @param partition   the partition it runs or waits in
 * @param comment     the job's comment, e.g. {@code colocate:node-a} on the copilot's holds
 * @param tres        what it holds when running, or asks for while pending, as Slurm's TRES string
 *                    ({@code cpu=2,mem=1500M,node=1,billing=2})
 * @param user        the Slurm user it runs as ({@code user_name}), empty when Slurm did not say
 * @param startTime   when it started (or is expected to), in epoch seconds; 0 when Slurm did not say
 * @param endTime     when it ended (or is expected to), in epoch seconds; 0 when Slurm did not say
 */
public record SlurmJob(long id, String name, String state, String reason, String nodes, String tresPerNode,
        long priority, String partition, String comment, String tres, String user, long startTime, long endTime) {

    public SlurmJob {
        partition = partition == null ? "" : partition;
        comment = comment == null ? "" : comment;
        tres = tres == null ? "" : tres;
        user = user == null ? "" : user;
    }

    public SlurmJob(long id, String name, String state, String reason, String nodes, String tresPerNode,
            long priority) {
        this(id, name, state, reason, nodes, tresPerNode, priority, "", "", "", "", 0, 0);
    }

    public boolean isPending() {
        return "PENDING".equals(state);
    }

    public boolean isRunning() {
        return "RUNNING".equals(state);
    }

    /** Whether it still holds or waits for resources. */
    public boolean isActive() {
        return ACTIVE.contains(state);
    }

    /** Whether the job runs on, or was sent to, the named node. */
    public boolean isOn(String node) {
        return Hostlist.expand(nodes).contains(node);
    }

    /** Whether the job holds or waits for resources on the named node. */
    public boolean activeOn(String node) {
        return ACTIVE.contains(state) && isOn(node);
    }

    /** The CPUs of its TRES string, 0 when it names none. */
    public long tresCpus() {
        return Tres.cpus(tres);
    }

    /** The memory of its TRES string in MB, 0 when it names none. */
    public long tresMemoryMb() {
        return Tres.memoryMb(tres);
    }

    /** States of jobs that hold or wait for resources. */
    public static final Set<String> ACTIVE = Set.of("PENDING", "RUNNING", "SUSPENDED", "CONFIGURING", "COMPLETING");
}
