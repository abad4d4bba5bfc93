package dev.colocate.slurm;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Tag;

/** {@link RestSlurmContractScenarios} on Slurm 26.05.5 (Debian forky's packages on a Debian 13 root, in a chroot): slurmrestd v0.0.45. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "release", value = "26.05"))
class Slurm2605ContractIT extends RestSlurmContractScenarios {

    @Override
    String expectedVersion() {
        return "v0.0.45";
    }

    @Override
    String expectedRelease() {
        return "26.05.5";
    }
}
