package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** What the operator last observed of the cluster. */
public class SlurmClusterStatus {

    @JsonPropertyDescription("Ready, ControllerReady, WorkersReady, AccountingReady, RestApiReady and ConfigValid, "
            + "following Kubernetes API conventions.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Ready slurmd workers over desired ones, e.g. 3/4.")
    private String workers;

    @JsonPropertyDescription("Ready slurmd workers by group name.")
    private Map<String, Integer> availableWorkers = new TreeMap<>();

    @JsonPropertyDescription("Slurm nodes on their way out of a smaller or removed worker group: drained (reason "
            + "'colocate: scale-in'), and removed once no job runs there.")
    private List<String> leavingWorkers = new ArrayList<>();

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

    public Map<String, Integer> getAvailableWorkers() {
        return availableWorkers;
    }

    public void setAvailableWorkers(Map<String, Integer> availableWorkers) {
        this.availableWorkers = availableWorkers;
    }

    public List<String> getLeavingWorkers() {
        return leavingWorkers;
    }

    public void setLeavingWorkers(List<String> leavingWorkers) {
        this.leavingWorkers = leavingWorkers;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlurmClusterStatus other && Objects.equals(conditions, other.conditions)
                && Objects.equals(workers, other.workers) && Objects.equals(availableWorkers, other.availableWorkers)
                && Objects.equals(leavingWorkers, other.leavingWorkers)
                && Objects.equals(observedGeneration, other.observedGeneration);
    }

    @Override
    public int hashCode() {
        return Objects.hash(conditions, workers, availableWorkers, leavingWorkers, observedGeneration);
    }
}
