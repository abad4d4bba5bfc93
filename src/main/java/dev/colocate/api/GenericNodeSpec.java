package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

/** Which Slurm node shares this Kubernetes node, and in which Slurm cluster. */
public class GenericNodeSpec {

    /** The only kind of second scheduler colocate shares nodes with. */
    public static final String TYPE_SLURM = "Slurm";

    @JsonPropertyDescription("Name of the Slurm cluster the node belongs to: the SlurmCluster's name, or the "
            + "ClusterName of an external Slurm.")
    private String clusterName;

    @JsonPropertyDescription("Name of the Slurm node (slurm.conf NodeName) that runs on this Kubernetes node.")
    private String alias;

    @JsonPropertyDescription("Kind of the workload manager that shares the node with Kubernetes.")
    @Default(TYPE_SLURM)
    private String type = TYPE_SLURM;

    public String getClusterName() {
        return clusterName;
    }

    public void setClusterName(String clusterName) {
        this.clusterName = clusterName;
    }

    public String getAlias() {
        return alias;
    }

    public void setAlias(String alias) {
        this.alias = alias;
    }

    public String getType() {
        return type;
    }

    public void setType(String type) {
        this.type = type;
    }
}
