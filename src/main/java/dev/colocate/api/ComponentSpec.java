package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Placement and sizing shared by every Slurm component's pods. */
public class ComponentSpec {

    @JsonPropertyDescription("Container image of the component; defaults to spec.image.")
    private String image;

    @JsonPropertyDescription("CPU and memory requests and limits of the component's main container.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("Node labels the component's pods must match.")
    private Map<String, String> nodeSelector = new TreeMap<>();

    @JsonPropertyDescription("Tolerations of the component's pods.")
    private List<Toleration> tolerations = new ArrayList<>();

    @JsonPropertyDescription("Affinity rules of the component's pods.")
    private Affinity affinity;

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
    }

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public List<Toleration> getTolerations() {
        return tolerations;
    }

    public void setTolerations(List<Toleration> tolerations) {
        this.tolerations = tolerations;
    }

    public Affinity getAffinity() {
        return affinity;
    }

    public void setAffinity(Affinity affinity) {
        this.affinity = affinity;
    }
}
