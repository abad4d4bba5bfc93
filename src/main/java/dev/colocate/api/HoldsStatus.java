package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;

/** What Slurm holds for Kubernetes on a node in hold mode, next to what Kubernetes needs there. */
public class HoldsStatus {

    @JsonPropertyDescription("Granted holds: Slurm allocations (job name colocate-hold) pinned to the node.")
    private int count;

    @JsonPropertyDescription("Holds waiting at the top priority for Slurm to have room.")
    private int waiting;

    @JsonPropertyDescription("CPUs the granted holds hold.")
    private Quantity cpu;

    @JsonPropertyDescription("Memory the granted holds hold.")
    private Quantity memory;

    @JsonPropertyDescription("Whole CPUs that cover Kubernetes' requests on the node.")
    private Quantity neededCpu;

    @JsonPropertyDescription("Memory (whole MiB) that covers Kubernetes' requests on the node.")
    private Quantity neededMemory;

    @JsonPropertyDescription("Slurm job ids of the holds, granted and waiting.")
    private List<Long> jobIds = new ArrayList<>();

    public HoldsStatus() {
    }

    public HoldsStatus(int count, int waiting, Quantity cpu, Quantity memory, Quantity neededCpu,
            Quantity neededMemory, List<Long> jobIds) {
        this.count = count;
        this.waiting = waiting;
        this.cpu = cpu;
        this.memory = memory;
        this.neededCpu = neededCpu;
        this.neededMemory = neededMemory;
        this.jobIds = jobIds;
    }

    public int getCount() {
        return count;
    }

    public void setCount(int count) {
        this.count = count;
    }

    public int getWaiting() {
        return waiting;
    }

    public void setWaiting(int waiting) {
        this.waiting = waiting;
    }

    public Quantity getCpu() {
        return cpu;
    }

    public void setCpu(Quantity cpu) {
        this.cpu = cpu;
    }

    public Quantity getMemory() {
        return memory;
    }

    public void setMemory(Quantity memory) {
        this.memory = memory;
    }

    public Quantity getNeededCpu() {
        return neededCpu;
    }

    public void setNeededCpu(Quantity neededCpu) {
        this.neededCpu = neededCpu;
    }

    public Quantity getNeededMemory() {
        return neededMemory;
    }

    public void setNeededMemory(Quantity neededMemory) {
        this.neededMemory = neededMemory;
    }

    public List<Long> getJobIds() {
        return jobIds;
    }

    public void setJobIds(List<Long> jobIds) {
        this.jobIds = jobIds;
    }
}
