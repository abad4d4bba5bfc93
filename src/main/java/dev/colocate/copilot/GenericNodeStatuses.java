package dev.colocate.copilot;

import dev.colocate.api.AllocatedResources;
import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNodeStatus;
import dev.colocate.api.Reservation;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The one place GenericNode status is built: from the ledger, Slurm's reachability and the previous status. */
public final class GenericNodeStatuses {

    public static final String READY = "Ready";
    public static final String SLURM_REACHABLE = "SlurmReachable";
    public static final String OVERCOMMITTED = "Overcommitted";

    private GenericNodeStatuses() {
    }

    /**
     * The status to show.
     *
     * @param ledger       the node's books, or null when they could not be computed (Slurm never seen)
     * @param slurmProblem why Slurm could not be read or written, or null when it was
     * @param shareWritten the share Slurm holds now as far as the copilot knows, or null
     * @param drained      why Slurm drained the node (its reason text), or null when it did not
     */
    public static GenericNodeStatus build(GenericNodeStatus previous, NodeLedger ledger, String slurmProblem,
            SlurmShare shareWritten, String drained, List<Reservation> reservations, Long generation, Instant now) {
        GenericNodeStatus s = new GenericNodeStatus();
        List<Condition> conditions = previous == null ? List.of() : previous.getConditions();
        if (ledger != null) {
            s.setAllocatedResources(List.of(
                    new AllocatedResources(AllocatedResources.OWNER_SLURM, ledger.slurm().asQuantities()),
                    new AllocatedResources(AllocatedResources.OWNER_KUBERNETES, ledger.kubernetes().asQuantities())));
            s.setCapacity(ledger.capacity().asQuantities());
        } else if (previous != null) {
            s.setAllocatedResources(previous.getAllocatedResources());
            s.setCapacity(previous.getCapacity());
        }
        if (shareWritten != null) {
            s.setSlurmShare(new java.util.TreeMap<>(Map.of("k8scpu", shareWritten.cpuCores(),
                    "k8smemory", shareWritten.memoryMb())));
        } else if (previous != null) {
            s.setSlurmShare(previous.getSlurmShare());
        }
        s.setReservations(reservations);
        conditions = Conditions.with(conditions, SLURM_REACHABLE, slurmProblem == null,
                slurmProblem == null ? "Reachable" : "Unreachable",
                slurmProblem == null ? "slurmrestd answered" : slurmProblem, generation, now);
        boolean over = ledger != null && ledger.overcommitted();
        conditions = Conditions.with(conditions, OVERCOMMITTED, over, over ? "KubernetesAndSlurmExceedCapacity"
                : "WithinCapacity", over ? String.join("; ", ledger.violations())
                : "Kubernetes and Slurm together hold no more than the node has", generation, now);
        boolean written = ledger != null && slurmProblem == null && shareWritten != null
                && shareWritten.equals(ledger.share());
        boolean ready = written && drained == null;
        // a drained node says why first: while the copilot repairs it, its counts differ from the share on purpose
        String reason = ready ? "ShareWritten" : slurmProblem != null ? "SlurmUnreachable"
                : drained != null ? "SlurmNodeDrained" : "ShareNotWritten";
        String message = ready ? "Slurm's k8scpu/k8smemory counts match what Kubernetes leaves free"
                : slurmProblem != null ? slurmProblem
                : drained != null ? "Slurm drained the node: " + drained
                : "Slurm's counts are not yet what Kubernetes leaves free";
        conditions = Conditions.with(conditions, READY, ready, reason, message, generation, now);
        s.setConditions(conditions);
        s.setObservedGeneration(generation);
        return s;
    }
}
