package dev.colocate.operator.model;

import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** The Services of a SlurmCluster. */
public final class SlurmServices {

    private SlurmServices() {
    }

    /**
     * The headless Service that every worker StatefulSet of the cluster names, so that each Slurm node name resolves
     * as {@code <node>.<cluster>-workers}: one search domain for all groups (pods may have only a few).
     */
    public static String workersName(SlurmCluster cluster) {
        return cluster.getMetadata().getName() + "-workers";
    }

    /** The controller's headless Service: {@code <cluster>-slurmctld-0.<cluster>-slurmctld} is SlurmctldHost. */
    public static Service controller(SlurmCluster cluster) {
        return headless(cluster, cluster.controllerName(), Component.SLURMCTLD);
    }

    /** The workers' headless Service. */
    public static Service workers(SlurmCluster cluster) {
        return headless(cluster, workersName(cluster), Component.SLURMD);
    }

    /** slurmrestd's Service, which the copilot calls. */
    public static Service restApi(SlurmCluster cluster) {
        return clusterIp(cluster, cluster.restApiName(), Component.SLURMRESTD);
    }

    /** slurmdbd's Service, AccountingStorageHost in slurm.conf. */
    public static Service accounting(SlurmCluster cluster) {
        return clusterIp(cluster, cluster.accountingName(), Component.SLURMDBD);
    }

    // Slurm resolves node and controller names before their pods are ready (a slurmd registers to become ready),
    // so the headless Services publish addresses of pods that are not ready yet.
    private static Service headless(SlurmCluster cluster, String name, Component component) {
        return base(cluster, name, component).editSpec().withClusterIP("None").withPublishNotReadyAddresses(true)
                .endSpec().build();
    }

    private static Service clusterIp(SlurmCluster cluster, String name, Component component) {
        return base(cluster, name, component).editSpec().withType("ClusterIP").endSpec().build();
    }

    private static ServiceBuilder base(SlurmCluster cluster, String name, Component component) {
        return new ServiceBuilder()
                .withNewMetadata().withName(name).withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, component)).endMetadata()
                .withNewSpec().withSelector(SlurmPods.selector(cluster, component))
                .addNewPort().withName(component.role()).withPort(component.port())
                .withNewTargetPort(component.port()).endPort()
                .endSpec();
    }
}
