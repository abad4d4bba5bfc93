package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * One group of slurmd workers (an entry of ACK's workerGroupSpecs): a StatefulSet with a headless Service, each pod
 * one Slurm node, and a Slurm partition of the group's name.
 */
public class WorkerGroupSpec extends ComponentSpec {

    /** The most workers one group may have; a typo of a few digits is refused rather than started. */
    public static final int MAX_REPLICAS = 10_000;

    /** A lower-case DNS label of at most 32 characters: it names a StatefulSet, its pods and a partition. */
    public static final String GROUP_NAME_PATTERN = "^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$";

    @JsonPropertyDescription("Name of the group, unique in the cluster; its Slurm nodes and pods are named "
            + "<cluster>-worker-<group>-<ordinal>, and its partition <group>. Lower-case DNS label.")
    @Required
    @Pattern(GROUP_NAME_PATTERN)
    @Size(max = 32)
    private String groupName;

    @JsonPropertyDescription("Number of slurmd pods (Slurm nodes) in the group. Scaling in drains the Slurm nodes "
            + "that go.")
    @Min(0)
    @Max(MAX_REPLICAS)
    private int replicas = 1;

    @JsonPropertyDescription("Whether Kubernetes pods share the group's nodes with Slurm: the copilot then keeps "
            + "Kubernetes' share out of Slurm's reach (holds) and the nodes are in the holds partition.")
    private boolean shared = true;

    @JsonPropertyDescription("Slurm node features of the group's nodes, besides the group's name.")
    private List<String> features = new ArrayList<>();

    public String getGroupName() {
        return groupName;
    }

    public void setGroupName(String groupName) {
        this.groupName = groupName;
    }

    public int getReplicas() {
        return replicas;
    }

    public void setReplicas(int replicas) {
        this.replicas = replicas;
    }

    public boolean isShared() {
        return shared;
    }

    public void setShared(boolean shared) {
        this.shared = shared;
    }

    public List<String> getFeatures() {
        return features;
    }

    public void setFeatures(List<String> features) {
        this.features = features;
    }
}
