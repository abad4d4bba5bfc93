package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The copilot role: the GenericNode ledger and the k8scpu/k8smemory counts on Slurm nodes. */
@ConfigMapping(prefix = "colocate.copilot")
public interface CopilotConfig {

    /** Whether this process runs the copilot role. */
    @WithDefault("true")
    boolean enabled();

    /**
     * How often every node's count is re-asserted even without a change: runtime GRES counts are lost when slurmctld
     * restarts or runs {@code scontrol reconfigure}, so the copilot never trusts that its last write still stands.
     */
    @WithDefault("30s")
    Duration resyncInterval();

    /** How often Slurm's view (one nodes() call for all nodes) is refreshed. */
    @WithDefault("5s")
    Duration slurmPollInterval();

    /** Cluster name shown for nodes of an external Slurm that carry no colocate.dev/slurm-cluster label. */
    @WithDefault("external")
    String defaultClusterName();
}
