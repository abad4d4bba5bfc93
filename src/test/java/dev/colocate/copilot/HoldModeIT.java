package dev.colocate.copilot;

import dev.colocate.testing.RealKubernetes;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;

/** {@link HoldModeScenarios} on Slurm 22.05, with job_submit.lua: holds by salloc, waiting holds by sbatch. */
@QuarkusTest
@Tag("slurm")
@Tag("kube")
@QuarkusTestResource(value = RealKubernetes.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "jobSubmitLua", value = "true"),
            @ResourceArg(name = "resyncInterval", value = "3s"), @ResourceArg(name = "compactAfter", value = "2s")})
class HoldModeIT extends HoldModeScenarios {

    @Override
    SlurmHarness.Shape shape() {
        return new SlurmHarness.Shape(1, 8, 32000, true);
    }
}
