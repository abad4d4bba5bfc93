package dev.colocate.slurm;

/**
 * A hold to ask Slurm for: whole CPUs and MB on one node, in the holds partition, at the top priority, with no time
 * limit; with {@code k8scpu}/{@code k8smemory} GRES of the same counts where the node defines them, so that a job
 * asking {@code --gres=k8scpu:3} sees what Kubernetes holds.
 */
public record HoldRequest(String node, String kubernetesNode, long cpus, long memoryMb, boolean withGres,
        String partition) {

    public HoldRequest {
        Hostlist.requireNodeName(node);
        if (cpus < 1 || memoryMb < 0) {
            throw new IllegalArgumentException("a hold takes at least one CPU and no negative memory, got " + cpus
                    + " CPU and " + memoryMb + " MB");
        }
        if (!kubernetesNode.matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")) {
            throw new IllegalArgumentException("not a Kubernetes node name: " + kubernetesNode);
        }
        if (!partition.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("not a Slurm partition name: " + partition);
        }
    }

    /** The GRES it asks for, e.g. {@code k8scpu:2,k8smemory:1500}, or null without. */
    public String gres() {
        return withGres ? Gres.kubernetesShare(cpus, memoryMb) : null;
    }

    public String comment() {
        return SlurmHold.comment(kubernetesNode);
    }
}
