package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The operator role: reconciling SlurmCluster resources. */
@ConfigMapping(prefix = "colocate.operator")
public interface OperatorConfig {

    /** Whether this process runs the operator role. Off for a copilot-only deployment or against an external Slurm. */
    @WithDefault("true")
    boolean enabled();
}
