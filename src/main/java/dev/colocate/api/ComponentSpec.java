package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pod settings every Slurm component takes, under the names of ACK's ack-slurm-cluster values
 * (headNodeConfig, slurmdbdConfigs, slurmrestdConfigs, each workerGroupSpecs entry).
 */
public class ComponentSpec {

    @JsonPropertyDescription("Container image of the component, with a tag or digest; defaults to spec.image.")
    private String image;

    @JsonPropertyDescription("Secrets to pull the image with.")
    private List<LocalObjectReference> imagePullSecrets = new ArrayList<>();

    @JsonPropertyDescription("Node labels the component's pods must match.")
    private Map<String, String> nodeSelector = new TreeMap<>();

    @JsonPropertyDescription("Tolerations of the component's pods. Shared worker groups also get the "
            + "colocate.dev/shared taint's toleration.")
    private List<Toleration> tolerations = new ArrayList<>();

    @JsonPropertyDescription("Affinity rules of the component's pods. Worker pods also keep off nodes that run "
            + "another slurmd.")
    private Affinity affinity;

    @JsonPropertyDescription("CPU and memory requests and limits of the component's main container. For a worker "
            + "group they also size the Slurm node: CPUs and RealMemory come from the limits, or else the requests.")
    private ResourceRequirements resources;

    @JsonPropertyDescription("Pod-level security settings.")
    private PodSecurityContext podSecurityContext;

    @JsonPropertyDescription("Security settings of the main container.")
    private SecurityContext securityContext;

    @JsonPropertyDescription("Further volumes of the component's pods.")
    private List<Volume> volumes = new ArrayList<>();

    @JsonPropertyDescription("Where the main container mounts the further volumes.")
    private List<VolumeMount> volumeMounts = new ArrayList<>();

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public List<LocalObjectReference> getImagePullSecrets() {
        return imagePullSecrets;
    }

    public void setImagePullSecrets(List<LocalObjectReference> imagePullSecrets) {
        this.imagePullSecrets = imagePullSecrets;
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

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
    }

    public PodSecurityContext getPodSecurityContext() {
        return podSecurityContext;
    }

    public void setPodSecurityContext(PodSecurityContext podSecurityContext) {
        this.podSecurityContext = podSecurityContext;
    }

    public SecurityContext getSecurityContext() {
        return securityContext;
    }

    public void setSecurityContext(SecurityContext securityContext) {
        this.securityContext = securityContext;
    }

    public List<Volume> getVolumes() {
        return volumes;
    }

    public void setVolumes(List<Volume> volumes) {
        this.volumes = volumes;
    }

    public List<VolumeMount> getVolumeMounts() {
        return volumeMounts;
    }

    public void setVolumeMounts(List<VolumeMount> volumeMounts) {
        this.volumeMounts = volumeMounts;
    }
}
