package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;

/**
 * TEST-SIDE STAND-IN for the StatefulSet and Deployment controllers, which fabric8's mock API server lacks: it
 * reports each workload in a namespace as rolled out (every replica ready on the current template), the way their
 * status reads on a real cluster once the pods run. The operator reads nothing else of them.
 */
public final class WorkloadControllerStandIn {

    private final KubernetesClient client;
    private final String namespace;

    public WorkloadControllerStandIn(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** Reports every StatefulSet and Deployment of the namespace as rolled out; call it inside an await. */
    public void rollOut() {
        for (StatefulSet sts : client.apps().statefulSets().inNamespace(namespace).list().getItems()) {
            int replicas = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
            String revision = revision(sts.getSpec().getTemplate());
            var status = new StatefulSetStatusBuilder().withObservedGeneration(sts.getMetadata().getGeneration())
                    .withReplicas(replicas).withReadyReplicas(replicas).withUpdatedReplicas(replicas)
                    .withAvailableReplicas(replicas).withCurrentRevision(revision).withUpdateRevision(revision)
                    .build();
            if (!status.equals(sts.getStatus())) {
                sts.setStatus(status);
                write(() -> client.apps().statefulSets().resource(sts).updateStatus());
            }
        }
        for (Deployment d : client.apps().deployments().inNamespace(namespace).list().getItems()) {
            int replicas = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
            var status = new DeploymentStatusBuilder().withObservedGeneration(d.getMetadata().getGeneration())
                    .withReplicas(replicas).withReadyReplicas(replicas).withUpdatedReplicas(replicas)
                    .withAvailableReplicas(replicas).build();
            if (!status.equals(d.getStatus())) {
                d.setStatus(status);
                write(() -> client.apps().deployments().resource(d).updateStatus());
            }
        }
    }

    private static String revision(Object template) {
        return Integer.toHexString(Objects.hashCode(template));
    }

    // The operator may write the same object at the same moment: the next call catches up.
    private static void write(Runnable r) {
        try {
            r.run();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
        }
    }
}
