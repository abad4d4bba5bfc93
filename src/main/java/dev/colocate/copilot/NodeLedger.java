package dev.colocate.copilot;

import java.util.List;

/**
 * One shared node's books: capacity C, what Kubernetes holds (K, pods plus admitted reservations), what Slurm holds
 * (S), and the Slurm share that keeps K + S within C.
 *
 * @param share      the k8scpu/k8smemory counts to write: what Kubernetes leaves of C, rounded down
 * @param violations a message per resource where K + S exceeds C, empty when the node is within its capacity
 */
public record NodeLedger(Resources capacity, Resources kubernetes, Resources slurm, SlurmShare share,
        List<String> violations) {

    public boolean overcommitted() {
        return !violations.isEmpty();
    }
}
