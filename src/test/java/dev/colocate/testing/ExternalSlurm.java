package dev.colocate.testing;

import java.nio.file.Path;

/**
 * A Slurm that colocate reaches from outside (helm/colocate's {@code app.externalSlurm}): slurmrestd's URL, the JWT
 * key it trusts, and the slurm.conf that scontrol and salloc read (Slurm 22.05 writes).
 */
public record ExternalSlurm(String restUrl, Path jwtKey, Path slurmConf) {

    public static ExternalSlurm of(SlurmHarness harness) {
        return new ExternalSlurm(harness.restUrl(), harness.jwtKey(), harness.slurmConf());
    }
}
