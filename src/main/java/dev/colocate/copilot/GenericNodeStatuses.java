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
    /** Whether the copilot's last sync of the node went through; False names the failure it keeps retrying. */
    public static final String SYNCED = "Synced";

    private GenericNodeStatuses() {
    }

    /**
     * The status to show.
     *
     * @param ledger the node's books
     * @param report what the share keeper's sync left: Slurm's reachability, counts or holds, Ready's reason
     * @param mode   the share mode, {@code hold} or {@code gres}
     */
    public static GenericNodeStatus build(GenericNodeStatus previous, NodeLedger ledger, ShareReport report,
            String mode, List<Reservation> reservations, Long generation, Instant now) {
        GenericNodeStatus s = new GenericNodeStatus();
        List<Condition> conditions = previous == null ? List.of() : previous.getConditions();
        s.setAllocatedResources(List.of(
                new AllocatedResources(AllocatedResources.OWNER_SLURM, ledger.slurm().asQuantities()),
                new AllocatedResources(AllocatedResources.OWNER_KUBERNETES, ledger.kubernetes().asQuantities())));
        s.setCapacity(ledger.capacity().asQuantities());
        s.setShareMode(mode);
        if (report.counts() != null) {
            s.setSlurmShare(new java.util.TreeMap<>(Map.of("k8scpu", report.counts().cpuCores(),
                    "k8smemory", report.counts().memoryMb())));
        } else if (report.holds() == null && previous != null) {
            s.setSlurmShare(previous.getSlurmShare());
        }
        s.setHolds(report.holds());
        s.setReservations(reservations);
        String slurmProblem = report.slurmProblem();
        conditions = Conditions.with(conditions, SLURM_REACHABLE, slurmProblem == null,
                slurmProblem == null ? "Reachable" : "Unreachable",
                slurmProblem == null ? "slurmrestd answered" : slurmProblem, generation, now);
        List<String> violations = new java.util.ArrayList<>(ledger.violations());
        violations.addAll(report.violations());
        boolean over = !violations.isEmpty();
        conditions = Conditions.with(conditions, OVERCOMMITTED, over, over ? "KubernetesAndSlurmExceedCapacity"
                : "WithinCapacity", over ? String.join("; ", violations)
                : "Kubernetes and Slurm together hold no more than the node has", generation, now);
        conditions = Conditions.with(conditions, READY, report.inLine(), report.reason(), report.message(),
                generation, now);
        conditions = Conditions.with(conditions, SYNCED, true, "Synced", "the copilot's last sync of this node "
                + "went through", generation, now);
        s.setConditions(conditions);
        s.setObservedGeneration(generation);
        return s;
    }

    /**
     * The previous status with Synced=False and the failure's cause: what the node showed before stays (it is what
     * was last known), and the condition says it may be stale and why.
     */
    public static GenericNodeStatus syncFailed(GenericNodeStatus previous, String cause, Long generation,
            Instant now) {
        GenericNodeStatus s = previous == null ? new GenericNodeStatus()
                : io.fabric8.kubernetes.client.utils.Serialization.clone(previous);
        s.setConditions(Conditions.with(s.getConditions() == null ? List.of() : s.getConditions(), SYNCED, false,
                "SyncFailed", "the copilot's last sync of this node failed, so what it shows may be stale: " + cause
                        + "; the next event or resync retries", generation, now));
        return s;
    }
}
