package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** One group of slurmd workers: a StatefulSet with a headless Service; each pod is one Slurm node. */
public class WorkerGroupSpec extends ComponentSpec {

    @JsonPropertyDescription("Name of the group; Slurm nodes are named <cluster>-<group>-<ordinal>. Lower-case DNS label.")
    @Required
    @Pattern("^[a-z]([-a-z0-9]{0,30}[a-z0-9])?$")
    private String groupName;

    @JsonPropertyDescription("Number of slurmd pods (Slurm nodes) in the group.")
    @Min(0)
    private int replicas = 1;

    @JsonPropertyDescription("Whether Kubernetes pods may share the group's nodes with Slurm, through the copilot's "
            + "k8scpu/k8smemory GRES accounting.")
    private boolean shared = true;

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
}
