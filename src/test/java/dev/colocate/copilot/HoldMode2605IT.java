package dev.colocate.copilot;

import dev.colocate.testing.RealKubernetes;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Tag;

/**
 * {@link HoldModeScenarios} on Slurm 26.05: holds by slurmrestd v0.0.45's job/allocate, waiting holds by job/submit,
 * as on 24.11, with job_submit.lua.
 */
@QuarkusTest
@Tag("slurm")
@Tag("kube")
@QuarkusTestResource(value = RealKubernetes.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "release", value = "26.05"), @ResourceArg(name = "jobSubmitLua", value = "true"),
            @ResourceArg(name = "resyncInterval", value = "3s"), @ResourceArg(name = "compactAfter", value = "2s")})
class HoldMode2605IT extends HoldModeScenarios {

    @Override
    SlurmHarness.Shape shape() {
        return new SlurmHarness.Shape(1, 8, 32000, true).on(SlurmHarness.Release.SLURM_26_05);
    }
}
