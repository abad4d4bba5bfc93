package dev.colocate.bench;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Tag;

/** The stress of {@code ConcurrentStressIT}, ten times longer: 100,000 operations (-Pbench). */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "3"), @ResourceArg(name = "resyncInterval", value = "2s")})
class ConcurrentStressBench extends dev.colocate.scheduler.ConcurrentStress {

    @Override
    protected int operations() {
        return 100_000;
    }
}
