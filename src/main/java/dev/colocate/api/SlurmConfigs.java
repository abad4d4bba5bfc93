package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;
import java.util.TreeMap;

/** User configuration files (ACK's slurmConfigs). */
public class SlurmConfigs {

    @JsonPropertyDescription("Whole files by name, placed beside slurm.conf. slurm.conf, gres.conf, cgroup.conf and "
            + "slurmdbd.conf are merged with what the operator renders: a user line replaces the rendered line of the "
            + "same key, except where colocation needs the rendered value (ConfigValid says which). Passwords belong "
            + "in Secrets (accounting, jobComp), never here.")
    private Map<String, String> filesInConfigMap = new TreeMap<>();

    public Map<String, String> getFilesInConfigMap() {
        return filesInConfigMap;
    }

    public void setFilesInConfigMap(Map<String, String> filesInConfigMap) {
        this.filesInConfigMap = filesInConfigMap;
    }
}
