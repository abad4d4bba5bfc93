package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The slurmctld StatefulSet. */
public class HeadNodeSpec extends ComponentSpec {

    @JsonPropertyDescription("Run a second slurmctld as SlurmctldHost backup, which takes over when the first fails.")
    private boolean backup;

    public boolean isBackup() {
        return backup;
    }

    public void setBackup(boolean backup) {
        this.backup = backup;
    }
}
