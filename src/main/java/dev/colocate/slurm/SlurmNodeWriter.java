package dev.colocate.slurm;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * The writes Slurm 22.05's REST API cannot do; Slurm's commands (scontrol, salloc, sbatch) do them there, REST from
 * Slurm 23.11 on (holds from 24.05 on).
 */
public interface SlurmNodeWriter {

    /** Sets the k8scpu/k8smemory counts of a node, writing both, since naming one zeroes the other. */
    Uni<Void> setKubernetesShare(String node, long cpuCores, long memoryMb);

    /**
     * Clears a node's DRAIN so that Slurm schedules on it again ({@code State=RESUME}). Slurm 22.05 refuses it while
     * the node is INVALID_REG, and answers it by asking slurmd to register again.
     */
    Uni<Void> resume(String node);

    /**
     * Drains a node ({@code State=DRAIN} with the reason): Slurm starts nothing new there, and its running jobs
     * finish. Draining a drained node again only replaces the reason.
     */
    Uni<Void> drain(String node, String reason);

    /** Releases held jobs so that the scheduler considers them again. */
    Uni<Void> release(List<Long> jobIds);

    /**
     * Asks for a hold that Slurm grants at once or refuses ({@code --immediate}), returning its job id; a refusal
     * fails with {@link SlurmRefusedException} carrying Slurm's reason.
     */
    Uni<Long> grantHold(HoldRequest hold);

    /**
     * Queues a hold that waits, at the top priority, until Slurm has room, returning its job id. While it waits,
     * Slurm's scheduler starts nothing that would delay it (backfill only jobs that end before it could start).
     */
    Uni<Long> queueHold(HoldRequest hold);

    /**
     * The Slurm user the holds it grants and queues run as: the only owner whose holds colocate takes for Kubernetes'
     * share, since any user can name a job like one.
     */
    Uni<String> holdsUser();
}
