package dev.colocate.api;

/** Every label, annotation and taint key colocate reads or writes. */
public final class Labels {

    private Labels() {
    }

    /** On a Kubernetes node that an external (non-containerized) Slurm shares: the Slurm node's name. */
    public static final String SLURM_NODE = "colocate.dev/slurm-node";

    /** On a Kubernetes node of an external Slurm: the Slurm cluster's name, when not the copilot's default. */
    public static final String SLURM_CLUSTER = "colocate.dev/slurm-cluster";

    /** On every pod the operator creates: the SlurmCluster it belongs to. */
    public static final String CLUSTER = "colocate.dev/cluster";

    /** On every pod the operator creates: slurmctld, slurmd, slurmdbd or slurmrestd. */
    public static final String COMPONENT = "colocate.dev/component";

    /** The component label's value on slurmd worker pods. */
    public static final String COMPONENT_SLURMD = "slurmd";

    /** On every worker pod and its StatefulSet: the worker group's name. */
    public static final String WORKER_GROUP = "colocate.dev/worker-group";

    /**
     * On every worker StatefulSet: the worker group it was made from, as JSON, so that a group removed from the spec
     * can still be rendered while its nodes drain.
     */
    public static final String WORKER_GROUP_SPEC = "colocate.dev/worker-group-spec";

    /** On the pod templates the operator writes: a digest of the files and Secrets the pods read at start. */
    public static final String CONFIG_HASH = "colocate.dev/config-hash";

    /** On everything the operator creates, so that its informers cache only those objects. */
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";

    /** The managed-by label's value. */
    public static final String MANAGER = "colocate";

    /** The taint on shared nodes; pods opt in by tolerating it. */
    public static final String SHARED_TAINT = "colocate.dev/shared";

    /** Namespaces labelled with this (value "true") get the scheduler and toleration added to their pods. */
    public static final String ENABLED_NAMESPACE = "colocate.dev/enabled";
}
