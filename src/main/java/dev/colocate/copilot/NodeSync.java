package dev.colocate.copilot;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.api.GenericNodeStatus;
import dev.colocate.api.Reservation;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
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
import java.util.stream.Collectors;
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
    private final Clock clock = Clock.systemUTC();
    private volatile SlurmView slurmView = SlurmView.UNKNOWN;
    /** When each node was first touched since its last write: the start of its sync lag. */
    private final Map<String, Instant> touchedAt = new ConcurrentHashMap<>();
    /** Nodes whose count is to be written even if Slurm already shows it, e.g. after a slurmctld restart. */
    private final Set<String> forced = ConcurrentHashMap.newKeySet();

    @Inject
    public NodeSync(ClusterView view, SlurmControl slurm, GenericNodeWriter writer, EventRecorder events,
            CopilotMeters meters) {
        this.view = view;
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
        return Uni.createFrom().item(() -> prepare(nodeName))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .flatMap(plan -> plan == null ? Uni.createFrom().voidItem() : write(plan))
                .onFailure(KubernetesClientException.class).invoke(e ->
                        LOG.debugf("GenericNode %s: %s; the next event retries", nodeName, e.getMessage()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    /** What one sync does, computed without I/O to Slurm. */
    private record Plan(SharedNode shared, GenericNode genericNode, NodeLedger ledger, SlurmShare current,
            boolean mustWrite, String slurmProblem, String drained, List<Reservation> reservations) {
    }

    private Plan prepare(String nodeName) {
        SharedNode shared = view.sharedNodes().get(nodeName);
        GenericNode gn = view.genericNode(nodeName);
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
        Node node = view.node(nodeName);
        Resources capacity = Resources.of(node == null || node.getStatus() == null ? null
                : node.getStatus().getAllocatable());
        List<Pod> counted = view.podsOn(nodeName).stream()
                .filter(p -> Ledger.counts(p, nodeName, SharedNodes::isSlurmd)).toList();
        List<Reservation> reservations = liveReservations(gn, counted);
        Resources k = Ledger.kubernetes(counted, reservations.stream().map(r -> Resources.of(r.getRequests()))
                .toList());
        SlurmView sv = slurmView;
        SlurmNode slurmNode = sv.nodes().get(shared.alias());
        String problem = !sv.reachable() ? sv.problem()
                : slurmNode == null ? "Slurm has no node " + shared.alias() : null;
        NodeLedger ledger = Ledger.compute(capacity, k, Ledger.slurm(slurmNode));
        SlurmShare current = slurmNode == null ? null
                : new SlurmShare(slurmNode.gres(SlurmNode.K8S_CPU), slurmNode.gres(SlurmNode.K8S_MEMORY));
        boolean mustWrite = problem == null && (forced.remove(nodeName) || !ledger.share().equals(current));
        // Slurm drains a node whose runtime count differs, at its next registration, from the one it accepted while
        // jobs hold the GRES (DRAIN+INVALID_REG, also by the periodic re-registration every few minutes): shown, not
        // yet repaired, since the only repair that keeps jobs (reconfigure) resets every node's count for a moment
        String drained = slurmNode != null && slurmNode.is("DRAIN")
                ? slurmNode.reason() + (slurmNode.is("INVALID_REG") ? " (INVALID_REG)" : "") : null;
        return new Plan(shared, gn, ledger, current, mustWrite, problem, drained, reservations);
    }

    /** Reservations not yet expired whose pod the informer does not show bound yet. */
    static List<Reservation> liveReservations(GenericNode gn, List<Pod> counted) {
        Set<String> bound = counted.stream().map(p -> p.getMetadata().getUid()).collect(Collectors.toSet());
        Instant now = Instant.now();
        return gn.getStatus() == null ? List.of() : gn.getStatus().getReservations().stream()
                .filter(r -> !bound.contains(r.getPodUid()))
                .filter(r -> r.getExpiresAt() == null || Instant.parse(r.getExpiresAt()).isAfter(now))
                .toList();
    }

    private Uni<Void> write(Plan plan) {
        String node = plan.shared().nodeName();
        String alias = plan.shared().alias();
        SlurmShare target = plan.ledger().share();
        Uni<SlurmShare> shareNow = !plan.mustWrite() ? Uni.createFrom().item(plan.current())
                : slurm.setKubernetesShare(alias, target.cpuCores(), target.memoryMb())
                        .invoke(() -> {
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
                })
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .invoke(outcome -> publish(plan, outcome))
                .replaceWithVoid();
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
