package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A component the cluster can run without: slurmdbd or slurmrestd. */
public class OptionalComponentSpec extends ComponentSpec {

    @JsonPropertyDescription("Whether to run the component.")
    private boolean enabled;

    public OptionalComponentSpec() {
    }

    public OptionalComponentSpec(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
