package dev.colocate.scheduler;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Tag;

/** {@link ConcurrentStress} with 10,000 operations, on Slurm 22.05 with resyncs every 2 s. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "3"), @ResourceArg(name = "resyncInterval", value = "2s")})
class ConcurrentStressIT extends ConcurrentStress {

    @Override
    protected int operations() {
        return Integer.getInteger("colocate.stress.operations", 10_000);
    }
}
