package dev.colocate.operator.model;

import java.util.Set;
import java.util.function.Predicate;

/** The Slurm daemons a SlurmCluster runs, each with the configuration files it reads. */
public enum Component {
    /** The controller reads slurm.conf and every file beside it (gres.conf, job_submit.lua, user files). */
    SLURMCTLD("slurmctld", SlurmPaths.SLURMCTLD_PORT, name -> !name.equals(SlurmFiles.SLURMDBD_CONF)),
    /** A worker reads slurm.conf, gres.conf, cgroup.conf and user files such as plugstack.conf. */
    SLURMD("slurmd", SlurmPaths.SLURMD_PORT,
            name -> !name.equals(SlurmFiles.SLURMDBD_CONF) && !name.equals(SlurmFiles.JOB_SUBMIT_LUA)),
    /** slurmrestd reads only slurm.conf. */
    SLURMRESTD("slurmrestd", SlurmPaths.SLURMRESTD_PORT, Set.of(SlurmFiles.SLURM_CONF)::contains),
    /** slurmdbd reads only slurmdbd.conf. */
    SLURMDBD("slurmdbd", SlurmPaths.SLURMDBD_PORT, Set.of(SlurmFiles.SLURMDBD_CONF)::contains);

    private final String role;
    private final int port;
    private final Predicate<String> reads;

    Component(String role, int port, Predicate<String> reads) {
        this.role = role;
        this.port = port;
        this.reads = reads;
    }

    /** The daemon's name: the entrypoint's argument, the container's name and the component label's value. */
    public String role() {
        return role;
    }

    public int port() {
        return port;
    }

    /** Whether a change to this configuration file must restart the component. */
    public boolean reads(String fileName) {
        return reads.test(fileName);
    }
}
