package dev.colocate.copilot;

import dev.colocate.api.GenericNode;
import dev.colocate.api.Reservation;
import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * One shared node's books as the copilot sees them now: the ledger over the pods bound to it, the live reservations
 * and Slurm's last poll. Pure: the sync and the scheduler extender both read them, and neither changes anything by
 * doing so.
 *
 * @param ledger       K, S, C and the share Kubernetes leaves Slurm
 * @param current      the counts Slurm has now, or null when Slurm shows no such node
 * @param slurmNode    the node in Slurm's last poll, or null
 * @param problem      why Slurm's side cannot be trusted now (unreachable, no such node), or null
 * @param reservations admitted pods not yet seen bound, whose requests are part of K
 */
public record NodeBooks(NodeLedger ledger, SlurmShare current, SlurmNode slurmNode, String problem,
        List<Reservation> reservations) {

    /**
     * @param bound what the pods bound to the node hold, and their uids
     * @param holds what the copilot's own holds hold on the Slurm node, which is Kubernetes' share, not Slurm's
     * @param gone  whether a pod (by uid) was deleted: its reservation ends at once, not when it expires
     */
    public static NodeBooks of(SharedNode shared, Node node, BoundPods bound, GenericNode gn, SlurmView sv,
            Holdings holds, Predicate<String> gone, Instant now) {
        Resources capacity = Resources.of(node == null || node.getStatus() == null ? null
                : node.getStatus().getAllocatable());
        List<Reservation> reservations = liveReservations(gn, bound.uids(), now).stream()
                .filter(r -> !gone.test(r.getPodUid())).toList();
        Resources k = bound.requests();
        for (Reservation r : reservations) {
            k = k.plus(Resources.of(r.getRequests()));
        }
        SlurmNode slurmNode = sv.nodes().get(shared.alias());
        String problem = !sv.reachable() ? sv.problem()
                : slurmNode == null ? "Slurm has no node " + shared.alias() : null;
        NodeLedger ledger = Ledger.compute(capacity, k, Ledger.slurm(slurmNode, holds));
        SlurmShare current = slurmNode == null ? null
                : new SlurmShare(slurmNode.gres(SlurmNode.K8S_CPU), slurmNode.gres(SlurmNode.K8S_MEMORY));
        return new NodeBooks(ledger, current, slurmNode, problem, reservations);
    }

    /** What the Slurm node has beyond the Kubernetes node's allocatable; see {@link Ledger#kubeletReserve}. */
    public Resources kubeletReserve() {
        return Ledger.kubeletReserve(ledger.capacity(), slurmNode);
    }

    /** Reservations not yet expired whose pod the informer does not show bound yet. */
    static List<Reservation> liveReservations(GenericNode gn, Set<String> boundUids, Instant now) {
        return unexpired(gn, now).stream().filter(r -> !boundUids.contains(r.getPodUid())).toList();
    }

    /** The GenericNode's reservations that have not expired by {@code now}. */
    public static List<Reservation> unexpired(GenericNode gn, Instant now) {
        return gn == null || gn.getStatus() == null ? List.of() : gn.getStatus().getReservations().stream()
                .filter(r -> r.getExpiresAt() == null || Instant.parse(r.getExpiresAt()).isAfter(now))
                .toList();
    }
}
