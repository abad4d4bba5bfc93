package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;

/** The slurmctld StatefulSet (ACK's headNodeConfig). */
@ValidationRule(value = "!has(oldSelf.backupController) || !has(self.backupController) "
        + "|| self.backupController == oldSelf.backupController",
        message = "backupController is chosen when the SlurmCluster is created: it moves the job queue to another claim")
public class HeadNodeConfig extends ComponentSpec {

    @JsonPropertyDescription("Run a backup slurmctld (pod -1 of the slurmctld StatefulSet, the second "
            + "SlurmctldHost), which takes over SlurmctldTimeout after the first stops. Both then keep "
            + "StateSaveLocation on one ReadWriteMany claim, <cluster>-slurmctld-state, so stateSaveStorage needs a "
            + "storage class that offers ReadWriteMany. Chosen when the SlurmCluster is created.")
    private Boolean backupController;

    @JsonPropertyDescription("The claim that keeps StateSaveLocation: the job queue, and with it the copilot's "
            + "holds. It outlives the SlurmCluster, so a re-created cluster finds its jobs again.")
    private StateStorage stateSaveStorage = new StateStorage();

    public Boolean getBackupController() {
        return backupController;
    }

    public void setBackupController(Boolean backupController) {
        this.backupController = backupController;
    }

    /** Whether a backup slurmctld runs. */
    @JsonIgnore
    public boolean backup() {
        return Boolean.TRUE.equals(backupController);
    }

    public StateStorage getStateSaveStorage() {
        return stateSaveStorage;
    }

    public void setStateSaveStorage(StateStorage stateSaveStorage) {
        this.stateSaveStorage = stateSaveStorage;
    }
}
