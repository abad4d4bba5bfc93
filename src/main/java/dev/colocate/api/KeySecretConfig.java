package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;

/** Where a key lives (ACK's mungeConfigs, and the same for the JWT key). */
public class KeySecretConfig {

    @JsonPropertyDescription("Name of an existing Secret in the cluster's namespace that holds the key. When unset, "
            + "the operator generates one (<cluster>-munge, <cluster>-jwt) and keeps it; a Secret named here is "
            + "never changed or deleted.")
    @Pattern("^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
    private String secretName;

    public String getSecretName() {
        return secretName;
    }

    public void setSecretName(String secretName) {
        this.secretName = secretName;
    }
}
