package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** The copilot role: the GenericNode ledger and how Slurm learns Kubernetes' share (holds or GRES counts). */
@ConfigMapping(prefix = "colocate.copilot")
public interface CopilotConfig {

    /**
     * How Slurm learns what Kubernetes holds on a shared node. {@code hold} (the default): as Slurm allocations the
     * copilot holds on the node, which stock Slurm keeps across restarts and registrations. {@code gres}: by writing
     * the k8scpu/k8smemory counts, as ACK does; stock Slurm drains such nodes INVALID_REG at their next registration
     * while jobs hold the GRES, so use it only with a Slurm build whose registration keeps runtime counts.
     */
    @WithDefault("hold")
    ShareMode shareMode();

    enum ShareMode {
        HOLD, GRES
    }

    /** The holds partition's name unless {@code colocate.copilot.holds-partition} says otherwise. */
    String DEFAULT_HOLDS_PARTITION = "holds";

    /**
     * The partition of the holds, for the copilot and for the slurm.conf the operator renders for a SlurmCluster
     * (one name for both, so that the operator's partition is the copilot's). It must be in slurm.conf (one made with {@code scontrol create partition} is gone,
     * with its jobs, at the next slurmctld restart) and cover every shared node, with the top PriorityTier,
     * {@code PreemptMode=OFF} and {@code MaxTime=INFINITE}, e.g.
     * {@code PartitionName=holds Nodes=ALL PriorityTier=65000 PreemptMode=OFF MaxTime=INFINITE Hidden=YES RootOnly=YES}.
     */
    @WithDefault(DEFAULT_HOLDS_PARTITION)
    String holdsPartition();

    /**
     * The memory (MB) a hold grows by at least, where Slurm has room: pods of a few MiB each then cost a Slurm call
     * per step, not per pod. Once a node is quiet its holds are compacted to what Kubernetes needs.
     */
    @WithDefault("256")
    long holdMemoryStep();

    /**
     * How long a node's needs must stay the same before its holds are compacted (to under one CPU and one MB of
     * waste, and at most three holds). The next resync after it does it.
     */
    @WithDefault("60s")
    Duration holdCompactAfter();

    /** Whether this process runs the copilot role. */
    @WithDefault("true")
    boolean enabled();

    /**
     * How often every node is re-asserted even without a change: the holds are listed from Slurm (a node that rebooted
     * or an admin's scancel loses some, an earlier copilot may have left some) and every node's holds, or counts, are
     * brought in line again. Runtime GRES counts are lost when slurmctld restarts, so in GRES mode the copilot never
     * trusts that its last write still stands.
     */
    @WithDefault("30s")
    Duration resyncInterval();

    /** How often Slurm's view (one nodes() call for all nodes) is refreshed. */
    @WithDefault("5s")
    Duration slurmPollInterval();

    /**
     * How long a node must see no further change before its sync starts, so that a burst of pod events on the node
     * becomes one Slurm write. It adds this much to the sync lag of a single change.
     */
    @WithDefault("100ms")
    Duration coalesceWindow();

    /** The longest a sync waits for a node's changes to stop: a steady stream of them is still written this often. */
    @WithDefault("1s")
    Duration coalesceMaxDelay();

    /**
     * A shell command that makes the slurmd of Slurm node {@code {node}} register again, for example
     * {@code ssh {node} systemctl reload slurmd} (a SIGHUP). The copilot runs it when it repairs a node Slurm drained
     * with INVALID_REG (see RegistrationRecovery): slurmctld never asks such a node to register, and refuses to resume
     * it until it has. Without it such a node stays drained, its jobs running, until its slurmd restarts.
     */
    Optional<String> slurmdReregisterCommand();

    /** Cluster name shown for nodes of an external Slurm that carry no colocate.dev/slurm-cluster label. */
    @WithDefault("external")
    String defaultClusterName();

    /** Which copilot replica is active. */
    LeaderElection leaderElection();

    /**
     * One active copilot at a time, by a Lease: only the leader runs the sync and answers the extender, and only it is
     * ready, so the Service routes kube-scheduler's calls to it. A standby takes over within the lease duration; the
     * reservations it needs are on the GenericNodes. A leader that loses its lease exits, so that it never writes
     * Slurm shares next to a new leader.
     */
    interface LeaderElection {

        /**
         * Off by default, for one replica outside the chart; the chart's Deployment turns it on, and so do the tests
         * (the test profile, and every packaged app they start), so that what is tested is what runs.
         */
        @WithDefault("false")
        boolean enabled();

        @WithDefault("colocate-copilot")
        String leaseName();

        /** The Lease's namespace: the pod's own (POD_NAMESPACE), else default. */
        @WithDefault("${POD_NAMESPACE:default}")
        String namespace();

        @WithDefault("15s")
        Duration leaseDuration();

        @WithDefault("10s")
        Duration renewDeadline();

        @WithDefault("2s")
        Duration retryPeriod();
    }
}
