package dev.colocate.copilot;

import dev.colocate.slurm.SlurmControl;

/**
 * One Slurm the copilot serves, with everything the copilot keeps per Slurm: how to reach it, what the last poll
 * saw, the holds it has there, and the keeper that writes Kubernetes' share into it.
 *
 * @param key         {@link SlurmLinks#CONFIGURED}, or a SlurmCluster's {@code namespace/name}
 * @param clusterName the name GenericNodes show in CLUSTERNAME
 * @param endpoint    where its slurmrestd is, for logs and readiness
 * @param close       frees what the link opened (its REST client); a no-op for the configured Slurm
 */
public record SlurmLink(String key, String clusterName, String endpoint, SlurmControl slurm, SlurmState state,
        HoldBook holds, ShareKeeper keeper, Runnable close) {
}
