package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/**
 * The desired Slurm cluster. Section names follow ACK's ack-slurm-cluster values, so that a user's values carry over
 * (headNodeConfig, slurmdbdConfigs, slurmrestdConfigs, workerGroupSpecs, slurmConfigs, mungeConfigs).
 */
public class SlurmClusterSpec {

    /** The most worker groups a SlurmCluster may have: each is a StatefulSet and a partition. */
    public static final int MAX_WORKER_GROUPS = 64;

    @JsonPropertyDescription("Default container image of every Slurm component, with a tag or digest; the "
            + "operator's configured image (colocate.operator.slurm-image) when unset.")
    private String image;

    @JsonPropertyDescription("slurmctld, the head node: a StatefulSet with a headless Service and a claim for "
            + "StateSaveLocation.")
    private HeadNodeConfig headNodeConfig = new HeadNodeConfig();

    @JsonPropertyDescription("slurmdbd, run when accounting is set: a Deployment with a Service on port 6819.")
    private ComponentSpec slurmdbdConfigs = new ComponentSpec();

    @JsonPropertyDescription("slurmrestd, which the copilot talks to: a Deployment with a Service on port 6820.")
    private ComponentSpec slurmrestdConfigs = new ComponentSpec();

    @JsonPropertyDescription("Groups of slurmd workers, each a StatefulSet and a Slurm partition. Group names are "
            + "unique; at most " + MAX_WORKER_GROUPS + " groups.")
    // The bounds (here and on groupName) are what let a real API server accept the rule: unbounded, its estimated
    // cost exceeded the budget more than 100 times and the CRD was refused (the mock never evaluates CEL).
    @Size(max = MAX_WORKER_GROUPS)
    @ValidationRule(value = "self.all(g, self.exists_one(h, h.groupName == g.groupName))",
            message = "workerGroupSpecs: groupName must be unique")
    private List<WorkerGroupSpec> workerGroupSpecs = new ArrayList<>();

    @JsonPropertyDescription("User configuration files, merged with what the operator renders.")
    private SlurmConfigs slurmConfigs = new SlurmConfigs();

    @JsonPropertyDescription("The munge key's Secret (key munge.key).")
    private KeySecretConfig mungeConfigs = new KeySecretConfig();

    @JsonPropertyDescription("The Secret of the JWT keys (jwt_hs256.key, and jwt_rs256.key for RS256), which "
            + "colocate signs its tokens for slurmrestd with.")
    private JwtConfigs jwtConfigs = new JwtConfigs();

    @JsonPropertyDescription("The accounting database. When set, slurmdbd runs and slurm.conf points "
            + "AccountingStorage* at it.")
    private DatabaseSpec accounting;

    @JsonPropertyDescription("jobcomp/mysql: the database that completed jobs are written to (JobCompHost, "
            + "JobCompPort, JobCompUser, JobCompLoc).")
    private DatabaseSpec jobComp;

    public String getImage() {
        return image;
    }

    public void setImage(String image) {
        this.image = image;
    }

    public HeadNodeConfig getHeadNodeConfig() {
        return headNodeConfig;
    }

    public void setHeadNodeConfig(HeadNodeConfig headNodeConfig) {
        this.headNodeConfig = headNodeConfig;
    }

    public ComponentSpec getSlurmdbdConfigs() {
        return slurmdbdConfigs;
    }

    public void setSlurmdbdConfigs(ComponentSpec slurmdbdConfigs) {
        this.slurmdbdConfigs = slurmdbdConfigs;
    }

    public ComponentSpec getSlurmrestdConfigs() {
        return slurmrestdConfigs;
    }

    public void setSlurmrestdConfigs(ComponentSpec slurmrestdConfigs) {
        this.slurmrestdConfigs = slurmrestdConfigs;
    }

    public List<WorkerGroupSpec> getWorkerGroupSpecs() {
        return workerGroupSpecs;
    }

    public void setWorkerGroupSpecs(List<WorkerGroupSpec> workerGroupSpecs) {
        this.workerGroupSpecs = workerGroupSpecs;
    }

    public SlurmConfigs getSlurmConfigs() {
        return slurmConfigs;
    }

    public void setSlurmConfigs(SlurmConfigs slurmConfigs) {
        this.slurmConfigs = slurmConfigs;
    }

    public KeySecretConfig getMungeConfigs() {
        return mungeConfigs;
    }

    public void setMungeConfigs(KeySecretConfig mungeConfigs) {
        this.mungeConfigs = mungeConfigs;
    }

    public JwtConfigs getJwtConfigs() {
        return jwtConfigs;
    }

    public void setJwtConfigs(JwtConfigs jwtConfigs) {
        this.jwtConfigs = jwtConfigs;
    }

    public DatabaseSpec getAccounting() {
        return accounting;
    }

    public void setAccounting(DatabaseSpec accounting) {
        this.accounting = accounting;
    }

    public DatabaseSpec getJobComp() {
        return jobComp;
    }

    public void setJobComp(DatabaseSpec jobComp) {
        this.jobComp = jobComp;
    }
}
