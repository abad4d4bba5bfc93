package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** The slurmctld StatefulSet (ACK's headNodeConfig). */
public class HeadNodeConfig extends ComponentSpec {

    @JsonPropertyDescription("The claim that keeps StateSaveLocation: the job queue, and with it the copilot's "
            + "holds. It outlives the SlurmCluster, so a re-created cluster finds its jobs again.")
    private StateStorage stateSaveStorage = new StateStorage();

    public StateStorage getStateSaveStorage() {
        return stateSaveStorage;
    }

    public void setStateSaveStorage(StateStorage stateSaveStorage) {
        this.stateSaveStorage = stateSaveStorage;
    }
}
