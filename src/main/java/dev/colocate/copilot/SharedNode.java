package dev.colocate.copilot;

/**
 * A Kubernetes node that a Slurm node shares: the GenericNode's spec, and which Slurm it is.
 *
 * @param namespace the SlurmCluster's namespace when that cluster's slurmd runs on the node (its slurmrestd is found
 *                  by itself); null for a node of the Slurm configured in {@code colocate.slurm.*}
 */
public record SharedNode(String nodeName, String alias, String clusterName, String namespace) {

    /** A node of the configured (external) Slurm. */
    public SharedNode(String nodeName, String alias, String clusterName) {
        this(nodeName, alias, clusterName, null);
    }

    /** The key of the Slurm that holds the node: {@code namespace/cluster} for a SlurmCluster's. */
    public String slurmKey() {
        return namespace == null ? SlurmLinks.CONFIGURED : namespace + "/" + clusterName;
    }
}
