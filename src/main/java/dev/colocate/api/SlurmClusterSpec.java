package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.ArrayList;
import java.util.List;

/** The desired Slurm cluster. Section names follow ACK's ack-slurm-cluster values. */
public class SlurmClusterSpec {

    @JsonPropertyDescription("Default container image of every Slurm component.")
    @Required
    private String image;

    @JsonPropertyDescription("The slurmctld head node.")
    private HeadNodeSpec headNode = new HeadNodeSpec();

    @JsonPropertyDescription("Groups of slurmd workers.")
    private List<WorkerGroupSpec> workerGroups = new ArrayList<>();

    @JsonPropertyDescription("The slurmdbd accounting daemon; off by default.")
    private OptionalComponentSpec slurmdbd = new OptionalComponentSpec(false);

    @JsonPropertyDescription("The slurmrestd REST API, which the copilot uses; on by default.")
    private OptionalComponentSpec slurmrestd = new OptionalComponentSpec(true);

    @JsonPropertyDescription("Additions to the generated Slurm configuration.")
    private SlurmConfigSpec slurmConfig = new SlurmConfigSpec();

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public HeadNodeSpec getHeadNode() {
        return headNode;
    }

    public void setHeadNode(HeadNodeSpec headNode) {
        this.headNode = headNode;
    }

    public List<WorkerGroupSpec> getWorkerGroups() {
        return workerGroups;
    }

    public void setWorkerGroups(List<WorkerGroupSpec> workerGroups) {
        this.workerGroups = workerGroups;
    }

    public OptionalComponentSpec getSlurmdbd() {
        return slurmdbd;
    }

    public void setSlurmdbd(OptionalComponentSpec slurmdbd) {
        this.slurmdbd = slurmdbd;
    }

    public OptionalComponentSpec getSlurmrestd() {
        return slurmrestd;
    }

    public void setSlurmrestd(OptionalComponentSpec slurmrestd) {
        this.slurmrestd = slurmrestd;
    }

    public SlurmConfigSpec getSlurmConfig() {
        return slurmConfig;
    }

    public void setSlurmConfig(SlurmConfigSpec slurmConfig) {
        this.slurmConfig = slurmConfig;
    }
}
