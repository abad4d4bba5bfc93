package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The kube-scheduler extender served by the copilot: filter, prioritize and the two-phase bind. */
@ConfigMapping(prefix = "colocate.scheduler")
public interface SchedulerConfig {

    /**
     * How long an admitted pod's reservation counts into Kubernetes' share while the pod is not yet seen bound. A
     * reservation whose pod never shows up (its Binding failed, the pod was deleted, the copilot restarted) is
     * released after this, and Slurm gets the resources back.
     */
    @WithDefault("60s")
    Duration reservationTimeout();

    /** How long bind waits for each Slurm call before it refuses, failing closed. */
    @WithDefault("10s")
    Duration slurmTimeout();
}
