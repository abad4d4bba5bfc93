package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The ledger of one shared node, as the copilot last observed it. */
public class GenericNodeStatus {

    @JsonPropertyDescription("What Slurm and Kubernetes each hold on the node, one entry per owner.")
    private List<AllocatedResources> allocatedResources = new ArrayList<>();

    @JsonPropertyDescription("Allocatable resources of the Kubernetes node (cpu, memory) that both schedulers share.")
    private Map<String, Quantity> capacity = new TreeMap<>();

    @JsonPropertyDescription("GRES mode: the k8scpu (CPUs) and k8smemory (MB) counts the copilot last wrote to the Slurm node.")
    private Map<String, Long> slurmShare = new TreeMap<>();

    @JsonPropertyDescription("hold or gres: how Slurm learns Kubernetes' share of the node.")
    private String shareMode;

    @JsonPropertyDescription("Hold mode: the Slurm allocations that hold Kubernetes' share, next to what it needs.")
    private HoldsStatus holds;

    @JsonPropertyDescription("Ready, SlurmReachable and Overcommitted, following Kubernetes API conventions.")
    private List<Condition> conditions = new ArrayList<>();

    @JsonPropertyDescription("Admissions granted by the scheduler extender whose pods are not yet seen bound.")
    private List<Reservation> reservations = new ArrayList<>();

    @JsonPropertyDescription("The metadata.generation this status was computed for.")
    private Long observedGeneration;

    public List<AllocatedResources> getAllocatedResources() {
        return allocatedResources;
    }

    public void setAllocatedResources(List<AllocatedResources> allocatedResources) {
        this.allocatedResources = allocatedResources;
    }

    public Map<String, Quantity> getCapacity() {
        return capacity;
    }

    public void setCapacity(Map<String, Quantity> capacity) {
        this.capacity = capacity;
    }

    public Map<String, Long> getSlurmShare() {
        return slurmShare;
    }

    public void setSlurmShare(Map<String, Long> slurmShare) {
        this.slurmShare = slurmShare;
    }

    public String getShareMode() {
        return shareMode;
    }

    public void setShareMode(String shareMode) {
        this.shareMode = shareMode;
    }

    public HoldsStatus getHolds() {
        return holds;
    }

    public void setHolds(HoldsStatus holds) {
        this.holds = holds;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public List<Reservation> getReservations() {
        return reservations;
    }

    public void setReservations(List<Reservation> reservations) {
        this.reservations = reservations;
    }

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }
}
