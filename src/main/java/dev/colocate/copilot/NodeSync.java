package dev.colocate.copilot;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.api.GenericNodeStatus;
import dev.colocate.api.Reservation;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Brings one node's Slurm count and GenericNode in line with the ledger. The ledger is computed from the informers'
 * caches and the last Slurm poll; the only I/O is the Slurm write (when the count differs) and the status patch (when
 * the status differs).
 */
@ApplicationScoped
public class NodeSync {

    private static final Logger LOG = Logger.getLogger(NodeSync.class);

    private final ClusterView view;
    private final SlurmControl slurm;
    private final GenericNodeWriter writer;
    private final EventRecorder events;
    private final CopilotMeters meters;
    private final RegistrationRepair repair;
    private final NodeLocks locks;
    /** The longest one node's sync may take, Slurm and API timeouts included. */
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);
    private final Clock clock = Clock.systemUTC();
    private volatile SlurmView slurmView = SlurmView.UNKNOWN;
    /** When each node was first touched since its last write: the start of its sync lag. */
    private final Map<String, Instant> touchedAt = new ConcurrentHashMap<>();
    /** Nodes whose count is to be written even if Slurm already shows it, e.g. after a slurmctld restart. */
    private final Set<String> forced = ConcurrentHashMap.newKeySet();

    @Inject
    public NodeSync(ClusterView view, SlurmControl slurm, GenericNodeWriter writer, EventRecorder events,
            CopilotMeters meters, RegistrationRepair repair, NodeLocks locks) {
        this.locks = locks;
        this.view = view;
        this.repair = repair;
        this.slurm = slurm;
        this.writer = writer;
        this.events = events;
        this.meters = meters;
    }

    /** Records that something about the node changed, for the sync lag. */
    public void touched(String node) {
        touchedAt.putIfAbsent(node, clock.instant());
    }

    /** The next sync of the node writes its count whatever Slurm shows. */
    public void force(String node) {
        forced.add(node);
    }

    public void slurmView(SlurmView view) {
        this.slurmView = view;
    }

    public SlurmView slurmView() {
        return slurmView;
    }

    /** Syncs one node; Kubernetes calls block, so this runs on a worker thread. */
    public Uni<Void> sync(String nodeName) {
        // under the node's lock from the ledger to the status write, so that a bind's reserve cannot fall between
        return Uni.createFrom().item(() -> locks.with(nodeName, () -> {
                    Plan plan = prepare(nodeName);
                    if (plan != null) {
                        // awaited here rather than re-dispatched: a sync then needs one worker thread, not two
                        publish(plan, write(plan).await().atMost(SYNC_TIMEOUT));
                    }
                    return (Void) null;
                }))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .onFailure(KubernetesClientException.class).invoke(e ->
                        LOG.debugf("GenericNode %s: %s; the next event retries", nodeName, e.getMessage()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    /** What one sync does, computed without I/O to Slurm. */
    private record Plan(SharedNode shared, GenericNode genericNode, NodeLedger ledger, SlurmShare current,
            boolean mustWrite, RegistrationRecovery.Step recovery, String slurmProblem, String drained,
            List<Reservation> reservations) {
    }

    private Plan prepare(String nodeName) {
        SharedNode shared = view.sharedNodes().get(nodeName);
        // read, not taken from the informer: a bind that just released this node's lock has written a reservation
        // the informer may not show yet, and while the pod's binding is not seen either, a ledger without it would
        // raise Slurm's share over what Kubernetes was promised
        GenericNode gn = writer.fetch(nodeName);
        if (shared == null) {
            if (gn != null) {
                writer.delete(nodeName);
                meters.forget(nodeName);
            }
            touchedAt.remove(nodeName);
            return null;
        }
        if (gn == null) {
            gn = writer.create(shared);
        } else if (!shared.alias().equals(gn.getSpec().getAlias())
                || !shared.clusterName().equals(gn.getSpec().getClusterName())) {
            gn = writer.updateSpec(gn, shared);
        }
        NodeBooks books = NodeBooks.of(shared, view.node(nodeName), view.podsOn(nodeName), gn, slurmView,
                clock.instant());
        NodeLedger ledger = books.ledger();
        SlurmShare current = books.current();
        SlurmNode slurmNode = books.slurmNode();
        String problem = books.problem();
        List<Reservation> reservations = books.reservations();
        // a node Slurm drained for a count change is repaired first; its share is written once it is back
        RegistrationRecovery.Step recovery = problem != null ? new RegistrationRecovery.None()
                : RegistrationRecovery.next(slurmNode, current, ledger.share(), repair.written(shared.alias()),
                        slurmNode != null && slurmNode.is("INVALID_REG") ? repair.tried(shared.alias(), current)
                                : Set.of());
        boolean recovering = !(recovery instanceof RegistrationRecovery.None);
        boolean mustWrite = problem == null && !recovering
                && (forced.remove(nodeName) || !ledger.share().equals(current));
        String drained = slurmNode == null || !slurmNode.is("DRAIN") ? null
                : slurmNode.reason() + (slurmNode.is("INVALID_REG") ? " (INVALID_REG)" : "")
                        + (recovering ? "; " + recovery.describe() : "");
        return new Plan(shared, gn, ledger, current, mustWrite, recovery, problem, drained, reservations);
    }

    /** The Slurm side of a sync; the status is published by the caller, on its worker thread. */
    private Uni<Outcome> write(Plan plan) {
        String node = plan.shared().nodeName();
        String alias = plan.shared().alias();
        SlurmShare target = plan.ledger().share();
        Uni<SlurmShare> shareNow = !(plan.recovery() instanceof RegistrationRecovery.None) ? recover(plan)
                : !plan.mustWrite() ? Uni.createFrom().item(plan.current())
                : slurm.setKubernetesShare(alias, target.cpuCores(), target.memoryMb())
                        .invoke(() -> {
                            repair.written(alias, target);
                            slurmView = slurmView.withShare(alias, target);
                            Instant since = touchedAt.remove(node);
                            meters.shareWritten(since == null ? null : Duration.between(since, clock.instant()));
                        })
                        .replaceWith(target);
        return shareNow
                .map(share -> new Outcome(share, plan.slurmProblem()))
                .onFailure().recoverWithItem(e -> {
                    events.record(plan.genericNode(), EventRecorder.Reason.ShareWriteFailed,
                            "k8scpu/k8smemory of Slurm node " + alias + " not written: " + e.getMessage());
                    return new Outcome(plan.current(), e.getMessage());
                });
    }

    private Uni<SlurmShare> recover(Plan plan) {
        String alias = plan.shared().alias();
        RegistrationRecovery.Step step = plan.recovery();
        if (step instanceof RegistrationRecovery.RestoreRegistered) {
            events.record(plan.genericNode(), EventRecorder.Reason.InvalidRegistration, "Slurm drained node " + alias
                    + " (" + plan.drained() + ")" + (repair.canAskToRegister() ? ""
                            : "; set colocate.copilot.slurmd-reregister-command, or restart its slurmd, to finish"));
        }
        return repair.apply(alias, step, plan.current())
                .invoke(share -> {
                    slurmView = slurmView.withShare(alias, share);
                    if (step instanceof RegistrationRecovery.Resume) {
                        events.record(plan.genericNode(), EventRecorder.Reason.SlurmNodeResumed,
                                "Slurm node " + alias + " resumed; its jobs kept running");
                    }
                });
    }

    private record Outcome(SlurmShare share, String slurmProblem) {
    }

    private void publish(Plan plan, Outcome outcome) {
        GenericNode gn = plan.genericNode();
        boolean wasOver = gn.getStatus() != null
                && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.OVERCOMMITTED);
        GenericNodeStatus status = GenericNodeStatuses.build(gn.getStatus(), plan.ledger(), outcome.slurmProblem(),
                outcome.share(), plan.drained(), plan.reservations(), gn.getMetadata().getGeneration(),
                clock.instant());
        meters.ledger(plan.shared().nodeName(), plan.ledger());
        writer.patchStatus(gn, status);
        if (plan.ledger().overcommitted() && !wasOver) {
            events.record(gn, EventRecorder.Reason.Overcommitted, String.join("; ", plan.ledger().violations()));
        }
    }
}
