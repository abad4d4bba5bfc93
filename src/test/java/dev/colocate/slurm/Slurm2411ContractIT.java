package dev.colocate.slurm;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Tag;

/** {@link RestSlurmContractScenarios} on Slurm 24.11.5 (Debian 13's packages in a chroot): slurmrestd v0.0.42. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "release", value = "24.11"))
class Slurm2411ContractIT extends RestSlurmContractScenarios {

    @Override
    String expectedVersion() {
        return "v0.0.42";
    }

    @Override
    String expectedRelease() {
        return "24.11.5";
    }
}
