package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** What one owner (Slurm or Kubernetes) holds on a node, as Kubernetes quantities. */
@JsonPropertyOrder({"allocated", "type"})
public class AllocatedResources {

    public static final String OWNER_SLURM = "Slurm";
    public static final String OWNER_KUBERNETES = "Kubernetes";

    @JsonPropertyDescription("Resources held, keyed by resource name (cpu, memory), in Kubernetes quantity format.")
    private Map<String, Quantity> allocated = new TreeMap<>();

    @JsonPropertyDescription("Who holds the resources: Slurm or Kubernetes.")
    private String type;

    public AllocatedResources() {
    }

    public AllocatedResources(String type, Map<String, Quantity> allocated) {
        this.type = type;
        this.allocated = new TreeMap<>(allocated);
    }

    public Map<String, Quantity> getAllocated() {
        return allocated;
    }

    public void setAllocated(Map<String, Quantity> allocated) {
        this.allocated = allocated;
    }

    public String getType() {
        return type;
    }

    public void setType(String type) {
        this.type = type;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AllocatedResources other && Objects.equals(type, other.type)
                && Objects.equals(allocated, other.allocated);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, allocated);
    }
}
