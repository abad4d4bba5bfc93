package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link HoldModeScenarios} on Slurm 22.05, with job_submit.lua: holds by salloc, waiting holds by sbatch. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "jobSubmitLua", value = "true"),
            @ResourceArg(name = "resyncInterval", value = "3s"), @ResourceArg(name = "compactAfter", value = "2s")})
class HoldModeIT extends HoldModeScenarios {

    @Override
    SlurmHarness.Shape shape() {
        return new SlurmHarness.Shape(1, 8, 32000, true);
    }

    /** The copilot alone decides a hold's GRES: job_submit.lua adds them to every other job, never to a hold. */
    @Test
    void jobSubmitLuaLeavesTheCopilotsHoldsAlone() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        String hold = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-p", "holds", "-w", "node1", "-c", "1",
                "--mem=10", "-J", "colocate-hold", "--comment=colocate:elsewhere", "--wrap", "sleep 60").strip();
        String job = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1", "-c", "1", "--mem=10",
                "-J", "colocate-hold", "--wrap", "sleep 60").strip();
        try {
            assertThat(harness.run("scontrol", "show", "job", hold)).doesNotContain("k8scpu");
            assertThat(harness.run("scontrol", "show", "job", job)).contains("TresPerNode=gres:k8scpu:1");
        } finally {
            harness.run("scancel", hold, job);
        }
    }
}
