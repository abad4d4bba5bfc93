package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;

/** The PersistentVolumeClaim of slurmctld's StateSaveLocation. */
public class StateStorage {

    @JsonPropertyDescription("Requested size, as a Kubernetes quantity.")
    @Pattern("^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$")
    private String size = "1Gi";

    @JsonPropertyDescription("Storage class of the claim; the cluster's default class when unset.")
    private String storageClassName;

    public String getSize() {
        return size;
    }

    public void setSize(String size) {
        this.size = size;
    }

    public String getStorageClassName() {
        return storageClassName;
    }

    public void setStorageClassName(String storageClassName) {
        this.storageClassName = storageClassName;
    }
}
