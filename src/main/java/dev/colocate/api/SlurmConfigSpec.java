package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;
import java.util.TreeMap;

/** User additions to the configuration files the operator renders. */
public class SlurmConfigSpec {

    @JsonPropertyDescription("Lines appended to the generated slurm.conf; they win over generated settings.")
    private String extraSlurmConf;

    @JsonPropertyDescription("Further files placed beside slurm.conf (e.g. cgroup.conf, job_submit.lua), keyed by "
            + "file name.")
    private Map<String, String> files = new TreeMap<>();

    public String getExtraSlurmConf() {
        return extraSlurmConf;
    }

    public void setExtraSlurmConf(String extraSlurmConf) {
        this.extraSlurmConf = extraSlurmConf;
    }

    public Map<String, String> getFiles() {
        return files;
    }

    public void setFiles(Map<String, String> files) {
        this.files = files;
    }
}
