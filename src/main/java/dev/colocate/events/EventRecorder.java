package dev.colocate.events;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.core.Context;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.UUID;
import org.jboss.logging.Logger;

/** Kubernetes events about colocate's objects (GenericNodes, SlurmClusters), one reason per cause. */
@ApplicationScoped
public class EventRecorder {

    private static final Logger LOG = Logger.getLogger(EventRecorder.class);
    /** Cluster-scoped objects' events live here, as the kubelet does for Nodes. */
    static final String CLUSTER_EVENTS_NAMESPACE = "default";

    /** Why an event was raised. */
    public enum Reason {
        /** Kubernetes and Slurm together hold more than a node has. */
        Overcommitted("Warning"),
        /** A k8scpu/k8smemory write to Slurm failed. */
        ShareWriteFailed("Warning"),
        /** Jobs that a lowered share had left held were released. */
        HeldJobsReleased("Normal"),
        /** Slurm drained the node because its count changed while jobs held the GRES; the copilot repairs it. */
        InvalidRegistration("Warning"),
        /** The copilot resumed a node Slurm had drained for a count change. */
        SlurmNodeResumed("Normal"),
        /** Slurm had no room for Kubernetes' share at once: a hold waits at the top priority. */
        HoldWaiting("Warning"),
        /** Holds the copilot had were gone from Slurm (a node reboot, an admin's scancel); it holds the share again. */
        HoldLost("Warning"),
        /** A job of another user than colocate's looks like a hold; it is left alone and counted as Slurm's. */
        ForeignHold("Warning"),
        /** A hold could not be granted, queued or cancelled. */
        HoldFailed("Warning"),
        /** Holds of a node no longer shared, or of a Slurm node the Kubernetes node no longer maps to, were cancelled. */
        HoldsReleased("Normal"),
        /** k8scpu/k8smemory counts that GRES mode had lowered were restored to the node's configuration. */
        CountsRestored("Normal"),
        /** A SlurmCluster's spec cannot be reconciled; its cluster is left as it was. */
        ConfigInvalid("Warning", "colocate-operator"),
        /** A step of a SlurmCluster's reconcile failed; it is retried. */
        ReconcileFailed("Warning", "colocate-operator"),
        /** Slurm nodes a smaller worker group gives up were drained; their pods go once no job runs there. */
        ScaleInDraining("Normal", "colocate-operator"),
        /** Slurm nodes a scale-in had drained are kept after all (the group grew again), and resumed. */
        ScaleInUndone("Normal", "colocate-operator");

        final String type;
        final String component;

        Reason(String type) {
            this(type, "colocate-copilot");
        }

        Reason(String type, String component) {
            this.type = type;
            this.component = component;
        }
    }

    private final KubernetesClient client;

    @Inject
    public EventRecorder(KubernetesClient client) {
        this.client = client;
    }

    /**
     * Raises one event about the object; a failure to raise it is logged, never thrown. Creating it is a blocking
     * call, so when the caller runs on a Vert.x event loop (a Mutiny callback of a Slurm answer), it is created on a
     * worker thread instead.
     */
    public void record(HasMetadata about, Reason reason, String message) {
        String ns = about.getMetadata().getNamespace() == null ? CLUSTER_EVENTS_NAMESPACE
                : about.getMetadata().getNamespace();
        String now = Instant.now().toString();
        Event event = new EventBuilder()
                .withNewMetadata().withNamespace(ns)
                .withName(about.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8))
                .endMetadata()
                .withInvolvedObject(new ObjectReferenceBuilder().withApiVersion(about.getApiVersion())
                        .withKind(about.getKind()).withName(about.getMetadata().getName())
                        .withUid(about.getMetadata().getUid()).build())
                .withType(reason.type).withReason(reason.name()).withMessage(message)
                .withFirstTimestamp(now).withLastTimestamp(now).withCount(1)
                .withNewSource().withComponent(reason.component).endSource()
                .build();
        if (Context.isOnEventLoopThread()) {
            Infrastructure.getDefaultWorkerPool().execute(() -> create(event, reason, about));
        } else {
            create(event, reason, about);
        }
    }

    private void create(Event event, Reason reason, HasMetadata about) {
        try {
            client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
        } catch (RuntimeException e) {
            LOG.warnf("could not record event %s on %s: %s", reason, about.getMetadata().getName(), e.getMessage());
        }
    }
}
