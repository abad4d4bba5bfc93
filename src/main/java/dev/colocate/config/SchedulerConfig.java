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

    /**
     * How long bind waits for each Slurm call before it refuses, failing closed. A bind makes up to three, after
     * waiting up to {@link #lockTimeout()} for its node: 3 s + 3 x 8 s stays under the 30 s the chart gives
     * kube-scheduler's extender calls (app.scheduler.extenderTimeout), so kube-scheduler always hears the answer.
     */
    @WithDefault("8s")
    Duration slurmTimeout();

    /**
     * How long bind waits for its node while a sync writes that node's Slurm share; then it refuses (node_busy) and
     * kube-scheduler tries the pod again, rather than giving up on a bind that might still go through.
     */
    @WithDefault("3s")
    Duration lockTimeout();
}
