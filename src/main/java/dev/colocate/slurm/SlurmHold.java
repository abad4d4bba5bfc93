package dev.colocate.slurm;

import java.util.Optional;

/**
 * One allocation the copilot holds on a Slurm node for Kubernetes: a job named {@value #NAME} in the holds partition,
 * pinned to the node, whose comment names the Kubernetes node ({@value #COMMENT_PREFIX}{@code node-a}), so that
 * {@code squeue} shows what it is and a restarted copilot can adopt it.
 *
 * @param node           the Slurm node it is pinned to
 * @param kubernetesNode the Kubernetes node it covers
 * @param running        granted (the job runs); false while it waits for room
 * @param withGres       whether it holds the k8scpu/k8smemory GRES too
 * @param user           the Slurm user it runs as: only the user colocate holds as makes real holds, and a job of
 *                       another user that looks like one is no hold (see {@code HoldListing})
 */
public record SlurmHold(long jobId, String node, String kubernetesNode, long cpus, long memoryMb, boolean running,
        boolean withGres, String reason, String user) {

    public static final String NAME = "colocate-hold";
    public static final String COMMENT_PREFIX = "colocate:";

    /** The comment a hold for the Kubernetes node carries. */
    public static String comment(String kubernetesNode) {
        return COMMENT_PREFIX + kubernetesNode;
    }

    /** The job as a hold, when it looks like an active hold of the given partition, whoever it belongs to. */
    public static Optional<SlurmHold> of(SlurmJob job, String partition) {
        if (!NAME.equals(job.name()) || !partition.equals(job.partition())
                || !job.comment().startsWith(COMMENT_PREFIX) || !SlurmJob.ACTIVE.contains(job.state())
                || "COMPLETING".equals(job.state())) {
            return Optional.empty();
        }
        String kubernetesNode = job.comment().substring(COMMENT_PREFIX.length());
        boolean gres = job.tresPerNode() != null && job.tresPerNode().contains(SlurmNode.K8S_CPU);
        return Optional.of(new SlurmHold(job.id(), job.nodes(), kubernetesNode, job.tresCpus(), job.tresMemoryMb(),
                !job.isPending(), gres, job.reason(), job.user()));
    }
}
