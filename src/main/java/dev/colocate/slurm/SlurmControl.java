package dev.colocate.slurm;

import io.smallrye.mutiny.Uni;
import java.util.List;

/**
 * Everything colocate asks of Slurm. Implementations: REST over slurmrestd, scontrol for node writes on Slurm 22.05,
 * and a composite that picks between them. Failures arrive as {@link SlurmException}s carrying Slurm's own message.
 */
public interface SlurmControl {

    /** Whether slurmctld answers, with its release and start time, so that a restart is detectable. */
    Uni<ControllerPing> ping();

    /** Every node with its state, CPUs, memory, allocations and GRES, in one call. */
    Uni<List<SlurmNode>> nodes();

    /** One node; fails with {@link SlurmNotFoundException} when Slurm has no such node. */
    Uni<SlurmNode> node(String name);

    /** Sets the k8scpu/k8smemory counts that tell Slurm what Kubernetes leaves free on the node, writing both. */
    Uni<Void> setKubernetesShare(String node, long cpuCores, long memoryMb);

    /** Clears the node's DRAIN ({@code State=RESUME}); see {@link SlurmNodeWriter#resume}. */
    Uni<Void> resume(String node);

    /** Drains the node with the reason; see {@link SlurmNodeWriter#drain}. */
    Uni<Void> drain(String node, String reason);

    /** Every job slurmctld still knows, in any state. */
    Uni<List<SlurmJob>> jobs();

    /**
     * The jobs, if any changed since {@code epochSeconds} ({@code update_time}); empty when none did. Slurm 22.05
     * answers 304 then, and lists every job otherwise; so a caller looks for the jobs it cares about, never at what
     * is missing.
     */
    Uni<java.util.Optional<List<SlurmJob>>> jobsChangedSince(long epochSeconds);

    /** The active (pending or running) jobs placed on, or pinned to, the node. */
    Uni<List<SlurmJob>> jobsOn(String node);

    /** The pending jobs held with the given reason, e.g. {@code BadConstraints}. */
    Uni<List<SlurmJob>> heldJobs(String reason);

    /** Releases held jobs so that the scheduler considers them again. */
    Uni<Void> release(List<Long> jobIds);

    /** Submits a batch job and returns its id. */
    Uni<Long> submit(JobSpec job);

    /** Cancels a job; cancelling a job that already ended is not an error. */
    Uni<Void> cancel(long jobId);

    /** Grants a hold at once or fails with {@link SlurmRefusedException}; see {@link SlurmNodeWriter#grantHold}. */
    Uni<Long> grantHold(HoldRequest hold);

    /** Queues a hold at the top priority; see {@link SlurmNodeWriter#queueHold}. */
    Uni<Long> queueHold(HoldRequest hold);

    /** The Slurm user colocate's holds run as; see {@link SlurmNodeWriter#holdsUser}. */
    Uni<String> holdsUser();

    /**
     * The active jobs of the given partition that look like holds, on every node, from one listing of the jobs; only
     * those of {@link #holdsUser} are colocate's.
     */
    Uni<List<SlurmHold>> holds(String partition);

    /** One partition; fails with {@link SlurmNotFoundException} when Slurm has none of that name. */
    Uni<SlurmPartition> partition(String name);
}
