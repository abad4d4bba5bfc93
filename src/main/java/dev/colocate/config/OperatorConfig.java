package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.List;

/** The operator role: reconciling SlurmCluster resources. */
@ConfigMapping(prefix = "colocate.operator")
public interface OperatorConfig {

    /** Whether this process runs the operator role. Off for a copilot-only deployment or against an external Slurm. */
    @WithDefault("true")
    boolean enabled();

    /** The Slurm image of components whose SlurmCluster names none (built from src/main/slurm/image). */
    @WithDefault("colocate/slurm:22.05")
    String slurmImage();

    /** The cluster's DNS domain, which Slurm pods search to find each other by host name. */
    @WithDefault("cluster.local")
    String clusterDomain();

    /**
     * The namespaces whose SlurmClusters colocate serves: the operator reconciles them and the copilot links to their
     * Slurm. {@value #ALL_NAMESPACES} means every namespace. It is QOSDK's own setting for the reconciler, read here
     * too, so that one value (the chart's app.watchNamespaces) scopes both roles and the RBAC the chart grants.
     */
    @WithDefault("${quarkus.operator-sdk.controllers.slurmcluster.namespaces:" + ALL_NAMESPACES + "}")
    List<String> namespaces();

    /** JOSDK's name for every namespace. */
    String ALL_NAMESPACES = "JOSDK_ALL_NAMESPACES";

    /** Whether {@link #namespaces()} means every namespace. */
    default boolean allNamespaces() {
        return namespaces().contains(ALL_NAMESPACES);
    }

    /** Which operator replica reconciles. */
    LeaderElection leaderElection();

    /**
     * One reconciling operator at a time, by a Lease (JOSDK's leader election): a second replica waits, its informers
     * idle, and takes over when the leader's lease lapses. The chart turns it on.
     */
    interface LeaderElection {

        @WithDefault("false")
        boolean enabled();

        @WithDefault("colocate-operator")
        String leaseName();

        /** The Lease's namespace: the pod's own (POD_NAMESPACE), else default. */
        @WithDefault("${POD_NAMESPACE:default}")
        String namespace();
    }
}
