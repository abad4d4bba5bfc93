package dev.colocate.copilot;

/** A Kubernetes node that a Slurm node shares: the GenericNode's spec. */
public record SharedNode(String nodeName, String alias, String clusterName) {
}
