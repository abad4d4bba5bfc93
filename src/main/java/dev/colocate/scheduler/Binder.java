package dev.colocate.scheduler;

import dev.colocate.api.GenericNode;
import dev.colocate.api.Reservation;
import dev.colocate.config.SchedulerConfig;
import dev.colocate.copilot.GenericNodeWriter;
import dev.colocate.copilot.NodeBooks;
import dev.colocate.copilot.NodeLocks;
import dev.colocate.copilot.PodRequests;
import dev.colocate.copilot.Resources;
import dev.colocate.copilot.ShareKeeper;
import dev.colocate.copilot.SharedNode;
import dev.colocate.scheduler.AdmissionMeters.Refusal;
import dev.colocate.scheduler.ExtenderTypes.ExtenderBindingArgs;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The two-phase bind of DESIGN §3: reserve in Slurm through the {@link ShareKeeper} (hold mode: an immediate
 * allocation of the pod's increment; GRES mode: a lowered count and a re-read), then commit (reservation on the
 * GenericNode, then the Binding), or undo the reserve and refuse. Binds to one node are serialized with each other and with the node's syncs ({@link NodeLocks}); binds
 * to different nodes run in parallel. Across
 * copilot replicas only the leader serves (see {@code CopilotLeadership}); the resourceVersion test on the
 * reservation write guards against a second writer all the same.
 */
@ApplicationScoped
public class Binder {

    private static final Logger LOG = Logger.getLogger(Binder.class);
    private static final int COMMIT_ATTEMPTS = 5;

    private final Candidates candidates;
    private final ShareKeeper keeper;
    private final GenericNodeWriter writer;
    private final KubernetesClient client;
    private final AdmissionMeters meters;
    private final SchedulerConfig config;
    private final Clock clock = Clock.systemUTC();
    private final NodeLocks locks;

    @Inject
    public Binder(Candidates candidates, ShareKeeper keeper, GenericNodeWriter writer, KubernetesClient client,
            AdmissionMeters meters, SchedulerConfig config, NodeLocks locks) {
        this.locks = locks;
        this.candidates = candidates;
        this.keeper = keeper;
        this.writer = writer;
        this.client = client;
        this.meters = meters;
        this.config = config;
    }

    /** Why a bind was refused, for the scheduler (which then retries the pod elsewhere) and the meters. */
    public static final class Refused extends RuntimeException {
        final Refusal reason;

        Refused(Refusal reason, String message) {
            super(message);
            this.reason = reason;
        }
    }

    /** Binds the pod, or throws {@link Refused} with a readable reason; nothing is left reserved then. */
    public void bind(ExtenderBindingArgs args) {
        Pod pod = client.pods().inNamespace(args.podNamespace()).withName(args.podName()).get();
        if (pod == null || args.podUid() != null && !args.podUid().equals(pod.getMetadata().getUid())) {
            throw refused(Refusal.POD_MISSING, "pod " + args.podNamespace() + "/" + args.podName() + " (uid "
                    + args.podUid() + ") does not exist");
        }
        SharedNode shared = candidates.shared(args.node());
        if (shared == null) {
            // as filter does: a name colocate has no Node for may be a shared node its cache does not show yet, so
            // it fails closed rather than binding past the ledger
            if (!candidates.known(args.node())) {
                throw refused(Refusal.UNKNOWN_NODE, Candidates.unknown(args.node()) + "; the scheduler tries the "
                        + "pod again");
            }
            try {
                createBinding(args);
            } catch (KubernetesClientException e) {
                throw refused(Refusal.BINDING_FAILED, bindingFailed(args, e));
            }
            return;
        }
        try {
            locks.with(args.node(), config.lockTimeout(), () -> {
                bindShared(args, pod, shared);
                return null;
            });
        } catch (NodeLocks.Busy e) {
            throw refused(Refusal.NODE_BUSY, e.getMessage() + "; the scheduler tries the pod again");
        }
    }

    private void bindShared(ExtenderBindingArgs args, Pod pod, SharedNode shared) {
        GenericNode gn = writer.fetch(args.node());
        if (gn == null) {
            throw refused(Refusal.NOT_READY, "shared node " + args.node() + " has no GenericNode yet");
        }
        Resources request = PodRequests.of(pod);
        NodeBooks books = candidates.books(shared, without(gn, pod.getMetadata().getUid()));
        if (books.problem() != null) {
            throw refused(Refusal.SLURM_UNREACHABLE, "Slurm: " + books.problem());
        }
        List<String> refusals = Fit.refusals(books.ledger(), request);
        if (!refusals.isEmpty()) {
            throw refused(Refusal.NO_FIT, args.node() + ": " + String.join("; ", refusals));
        }
        // 1. reserve: Slurm itself takes the pod's share, or says why not
        ShareKeeper.Reserve reserve;
        try {
            reserve = keeper.reserve(shared, books, request);
        } catch (ShareKeeper.ShareRefused e) {
            throw refused(switch (e.kind()) {
                case NO_ROOM -> Refusal.SLURM_REFUSED;
                case RACE -> Refusal.SLURM_RACE;
                case UNREACHABLE -> Refusal.SLURM_UNREACHABLE;
            }, args.node() + ": " + e.getMessage());
        }
        // 2. commit: the reservation keeps the pod in K until the informer shows it bound, then the Binding
        Reservation reservation = reservation(pod, request);
        try {
            commit(args.node(), gn, reservation);
        } catch (RuntimeException e) {
            reserve.undo();
            throw refused(Refusal.NOT_READY, "reservation on GenericNode " + args.node() + " not written: "
                    + e.getMessage());
        }
        try {
            createBinding(args);
        } catch (KubernetesClientException e) {
            String failed = bindingFailed(args, e);
            BindingOutcome outcome = BindingOutcome.of(e.getCode(), () -> readBack(args), args.node());
            switch (outcome) {
                case BOUND -> LOG.infof("%s, yet the pod is bound there: committed", failed);
                case NOT_BOUND -> {
                    uncommit(args.node(), reservation.getPodUid());
                    reserve.undo();
                    throw refused(Refusal.BINDING_FAILED, failed);
                }
                case UNKNOWN -> throw refused(Refusal.BINDING_UNKNOWN, failed + "; the pod may have been bound all "
                        + "the same, so what was reserved for it stays until the reservation expires");
            }
        }
        reserve.committed();
    }

    /** The pod as the API server has it now. */
    private BindingOutcome.ReadBack readBack(ExtenderBindingArgs args) {
        try {
            Pod pod = client.pods().inNamespace(args.podNamespace()).withName(args.podName()).get();
            if (pod == null || args.podUid() != null && !args.podUid().equals(pod.getMetadata().getUid())) {
                return BindingOutcome.ReadBack.GONE;
            }
            return new BindingOutcome.ReadBack(true, pod.getSpec() == null ? null : pod.getSpec().getNodeName());
        } catch (KubernetesClientException e) {
            LOG.warnf("pod %s/%s could not be read back after its Binding failed: %s", args.podNamespace(),
                    args.podName(), e.getMessage());
            return BindingOutcome.ReadBack.UNREADABLE;
        }
    }

    private Reservation reservation(Pod pod, Resources request) {
        Reservation r = new Reservation();
        r.setNamespace(pod.getMetadata().getNamespace());
        r.setPodName(pod.getMetadata().getName());
        r.setPodUid(pod.getMetadata().getUid());
        r.setRequests(new java.util.TreeMap<>(request.asQuantities()));
        r.setExpiresAt(clock.instant().plus(config.reservationTimeout()).toString());
        return r;
    }

    /** Adds the reservation, re-reading the GenericNode when another write came first. */
    private void commit(String node, GenericNode fetched, Reservation reservation) {
        // the first attempt writes over the GenericNode read at the start of the bind: under the node's lock no
        // sync of this copilot writes it meanwhile, and the resourceVersion test catches any other writer
        GenericNode gn = fetched;
        for (int attempt = 1; ; attempt++, gn = writer.fetch(node)) {
            List<Reservation> list = new ArrayList<>(live(gn, reservation.getPodUid()));
            list.add(reservation);
            try {
                writer.patchReservations(gn, list);
                return;
            } catch (KubernetesClientException e) {
                if (!conflict(e) || attempt == COMMIT_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    private void uncommit(String node, String podUid) {
        for (int attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
            GenericNode gn = writer.fetch(node);
            try {
                writer.patchReservations(gn, live(gn, podUid));
                return;
            } catch (KubernetesClientException e) {
                if (!conflict(e)) {
                    LOG.warnf("reservation of pod %s on %s not removed (%s); it expires", podUid, node,
                            e.getMessage());
                    return;
                }
            }
        }
    }

    private static boolean conflict(KubernetesClientException e) {
        // a stale resourceVersion; nothing else is retried as one
        return e.getCode() == 409;
    }

    /** The node's unexpired reservations other than the given pod's. */
    private List<Reservation> live(GenericNode gn, String podUid) {
        return NodeBooks.unexpired(gn, clock.instant()).stream().filter(r -> !podUid.equals(r.getPodUid())).toList();
    }

    /** The GenericNode without the pod's own reservation, so that a retried bind does not count the pod twice. */
    private GenericNode without(GenericNode gn, String podUid) {
        if (gn.getStatus() == null) {
            return gn;
        }
        GenericNode copy = io.fabric8.kubernetes.client.utils.Serialization.clone(gn);
        copy.getStatus().setReservations(gn.getStatus().getReservations().stream()
                .filter(r -> !podUid.equals(r.getPodUid())).toList());
        return copy;
    }

    private void createBinding(ExtenderBindingArgs args) {
        Binding binding = new BindingBuilder()
                .withNewMetadata().withName(args.podName()).withNamespace(args.podNamespace())
                .withUid(args.podUid()).endMetadata()
                .withNewTarget().withKind("Node").withApiVersion("v1").withName(args.node()).endTarget()
                .build();
        client.bindings().inNamespace(args.podNamespace()).resource(binding).create();
    }

    private static String bindingFailed(ExtenderBindingArgs args, KubernetesClientException e) {
        return "Binding of " + args.podNamespace() + "/" + args.podName() + " to " + args.node() + " failed: "
                + e.getMessage();
    }

    private Refused refused(Refusal reason, String message) {
        meters.refused(reason);
        return new Refused(reason, message);
    }
}
