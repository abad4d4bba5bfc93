package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** What the operator last observed of the cluster. */
public class SlurmClusterStatus {

    @JsonPropertyDescription("Ready and failure conditions, following Kubernetes API conventions.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Ready slurmd workers over desired ones, e.g. 3/4.")
    private String workers;

    @JsonPropertyDescription("The metadata.generation this status was computed for.")
    private Long observedGeneration;

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public String getWorkers() {
        return workers;
    }

    public void setWorkers(String workers) {
        this.workers = workers;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }
}
