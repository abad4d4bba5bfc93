package dev.colocate.copilot;

import dev.colocate.testing.RealKubernetes;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;

/**
 * {@link HoldModeScenarios} on Slurm 24.11: holds by slurmrestd's job/allocate, waiting holds by job/submit. With
 * job_submit.lua, which works there as on 22.05.
 */
@QuarkusTest
@Tag("slurm")
@Tag("kube")
@QuarkusTestResource(value = RealKubernetes.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "release", value = "24.11"), @ResourceArg(name = "jobSubmitLua", value = "true"),
            @ResourceArg(name = "resyncInterval", value = "3s"), @ResourceArg(name = "compactAfter", value = "2s")})
class HoldMode2411IT extends HoldModeScenarios {

    @Override
    SlurmHarness.Shape shape() {
        return new SlurmHarness.Shape(1, 8, 32000, true).on(SlurmHarness.Release.SLURM_24_11);
    }
}
