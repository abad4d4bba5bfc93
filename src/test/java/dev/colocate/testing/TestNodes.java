package dev.colocate.testing;

import dev.colocate.api.Labels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.Map;

/** Fluent test nodes: {@code aNode("k-1").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj()}. */
public final class TestNodes {

    /**
     * The annotation by which kwok, on the real control plane ({@link KubeHarness}), keeps a node Ready and runs its
     * pods; a mock API server ignores it.
     */
    public static final String KWOK_ANNOTATION = "kwok.x-k8s.io/node";
    /** As a kubelet's default maxPods: the scheduler places no pod on a node whose allocatable has no pods. */
    static final Quantity MAX_PODS = new Quantity("110");

    private final String name;
    private final Map<String, String> labels = new HashMap<>();
    private final Map<String, Quantity> allocatable = new HashMap<>();
    private boolean tainted;

    private TestNodes(String name) {
        this.name = name;
    }

    public static TestNodes aNode(String name) {
        return new TestNodes(name);
    }

    /** Labels the node as shared with the named Slurm node of an external Slurm. */
    public TestNodes sharedWith(String slurmNode) {
        labels.put(Labels.SLURM_NODE, slurmNode);
        return this;
    }

    public TestNodes allocatable(String cpu, String memory) {
        allocatable.put("cpu", new Quantity(cpu));
        allocatable.put("memory", new Quantity(memory));
        return this;
    }

    /** Carries the shared-node taint that keeps pods without the toleration away. */
    public TestNodes tainted() {
        this.tainted = true;
        return this;
    }

    public Node obj() {
        Map<String, Quantity> resources = new HashMap<>(allocatable);
        if (!allocatable.isEmpty()) {
            resources.put("pods", MAX_PODS);
        }
        // a kubelet reports capacity beside allocatable; here they are the same
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).withLabels(labels)
                .addToAnnotations(KWOK_ANNOTATION, "fake").endMetadata()
                .withNewStatus().withAllocatable(resources).withCapacity(resources).endStatus();
        if (tainted) {
            b.withNewSpec().addNewTaint().withKey(Labels.SHARED_TAINT).withValue("true").withEffect("NoSchedule")
                    .endTaint().endSpec();
        }
        return b.build();
    }
}
