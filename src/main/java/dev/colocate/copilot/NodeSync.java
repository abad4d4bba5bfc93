package dev.colocate.copilot;

import dev.colocate.events.EventRecorder;
import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.api.GenericNodeStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Brings one node's Slurm side and GenericNode in line with the ledger. The ledger is computed from the informers'
 * caches and the last Slurm poll; the {@link ShareKeeper} does the Slurm side (holds, or GRES counts), and the status
 * is patched when it differs.
 */
@ApplicationScoped
public class NodeSync {

    private static final Logger LOG = Logger.getLogger(NodeSync.class);

    private final ClusterView view;
    private final GenericNodeWriter writer;
    private final EventRecorder events;
    private final CopilotMeters meters;
    private final NodeLocks locks;
    private final ShareKeeper keeper;
    private final SlurmLinks links;
    private final Clock clock = Clock.systemUTC();
    /** When each node was first touched since Slurm was last brought in line: the start of its sync lag. */
    private final Map<String, Instant> touchedAt = new ConcurrentHashMap<>();
    /** Nodes to re-assert even if Slurm already shows them in line, e.g. after a slurmctld restart. */
    private final Set<String> forced = ConcurrentHashMap.newKeySet();
    private final FailureLog failures = new FailureLog();
    private final FirstSyncs firstSyncs;

    @Inject
    public NodeSync(ClusterView view, GenericNodeWriter writer, EventRecorder events, CopilotMeters meters,
            NodeLocks locks, ShareKeeper keeper, SlurmLinks links, FirstSyncs firstSyncs) {
        this.firstSyncs = firstSyncs;
        this.view = view;
        this.writer = writer;
        this.events = events;
        this.meters = meters;
        this.locks = locks;
        this.keeper = keeper;
        this.links = links;
    }

    /** Records that something about the node changed, for the sync lag. */
    public void touched(String node) {
        touchedAt.putIfAbsent(node, clock.instant());
    }

    /** The next sync of the node re-asserts it whatever Slurm shows. */
    public void force(String node) {
        forced.add(node);
    }

    /** Slurm as the last poll of the configured Slurm saw it. */
    public SlurmView slurmView() {
        return links.configured().map(l -> l.state().view()).orElse(SlurmView.UNKNOWN);
    }

    /** The node's books now, with the keeper's own holds taken out of Slurm's row. */
    public NodeBooks books(SharedNode shared, GenericNode gn) {
        return NodeBooks.of(shared, view.node(shared.nodeName()), view.boundPods(shared.nodeName()), gn,
                links.view(shared), keeper.ownHoldings(shared), view::podGone, clock.instant());
    }

    /**
     * A failed sync: counted by kind, and logged at WARN with its cause the first time (repeats at DEBUG, since the
     * next event or resync retries it every few seconds).
     */
    private void failed(String nodeName, Throwable e) {
        String kind = e instanceof KubernetesClientException ? "kubernetes" : "other";
        meters.syncFailed(kind);
        String cause = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (failures.failed(nodeName, cause)) {
            LOG.warnf(e instanceof KubernetesClientException ? null : e,
                    "sync of %s failed (%s): %s; the next event or resync retries", nodeName, kind, cause);
            showFailure(nodeName, cause);
        } else {
            LOG.debugf("sync of %s failed again (%s): %s", nodeName, kind, cause);
        }
    }

    /**
     * Puts a new failure on the node's GenericNode (Synced=False), once per cause; the next sync that goes through
     * sets it back. When the API server is what fails, this fails too, and the log and the meter tell.
     */
    private void showFailure(String nodeName, String cause) {
        try {
            GenericNode gn = writer.fetch(nodeName);
            if (gn != null) {
                writer.patchStatus(gn, GenericNodeStatuses.syncFailed(gn.getStatus(), cause,
                        gn.getMetadata().getGeneration(), clock.instant()));
            }
        } catch (RuntimeException e) {
            LOG.debugf("could not show the failed sync on GenericNode %s: %s", nodeName, e.getMessage());
        }
    }

    /** Syncs one node; Kubernetes and Slurm calls block, so this runs on a worker thread. */
    public Uni<Void> sync(String nodeName) {
        // under the node's lock from the ledger to the status write, so that a bind's reserve cannot fall between
        return Uni.createFrom().item(() -> locks.with(nodeName, () -> {
                    syncLocked(nodeName);
                    return (Void) null;
                }))
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .invoke(() -> {
                    if (failures.succeeded(nodeName)) {
                        LOG.infof("sync of %s succeeded again", nodeName);
                    }
                })
                .onFailure().invoke(e -> failed(nodeName, e))
                .onFailure().recoverWithNull()
                .invoke(() -> firstSyncs.synced(nodeName))
                .replaceWithVoid();
    }

    private void syncLocked(String nodeName) {
        SharedNode shared = view.sharedNodes().get(nodeName);
        // read, not taken from the informer: a bind that just released this node's lock has written a reservation
        // the informer may not show yet, and while the pod's binding is not seen either, a ledger without it would
        // hand Slurm back what Kubernetes was promised
        GenericNode gn = writer.fetch(nodeName);
        if (shared == null) {
            keeper.release(nodeName);
            if (gn != null) {
                writer.delete(nodeName);
                meters.forget(nodeName);
            }
            touchedAt.remove(nodeName);
            return;
        }
        if (gn == null) {
            gn = writer.create(shared);
        } else if (!shared.alias().equals(gn.getSpec().getAlias())
                || !shared.clusterName().equals(gn.getSpec().getClusterName())) {
            gn = writer.updateSpec(gn, shared);
        }
        NodeBooks books = books(shared, gn);
        ShareReport report = keeper.sync(shared, gn, books, forced.remove(nodeName));
        if (report.changed()) {
            Instant since = touchedAt.remove(nodeName);
            meters.shareWritten(since == null ? null : Duration.between(since, clock.instant()));
        } else if (report.inLine()) {
            touchedAt.remove(nodeName);
        }
        publish(gn, shared, books, report);
    }

    private void publish(GenericNode gn, SharedNode shared, NodeBooks books, ShareReport report) {
        boolean wasOver = gn.getStatus() != null
                && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.OVERCOMMITTED);
        GenericNodeStatus status = GenericNodeStatuses.build(gn.getStatus(), books.ledger(), report, keeper.mode(),
                books.reservations(), gn.getMetadata().getGeneration(), clock.instant());
        meters.ledger(shared.nodeName(), books.ledger());
        meters.drained(shared.nodeName(), report.drained() != null);
        writer.patchStatus(gn, status);
        boolean over = books.ledger().overcommitted() || !report.violations().isEmpty();
        if (over && !wasOver) {
            events.record(gn, EventRecorder.Reason.Overcommitted, String.join("; ",
                    java.util.stream.Stream.concat(books.ledger().violations().stream(),
                            report.violations().stream()).toList()));
        }
    }
}
