package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

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
