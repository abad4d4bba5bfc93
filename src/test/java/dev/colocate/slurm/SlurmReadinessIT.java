package dev.colocate.slurm;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** colocate's readiness follows slurmrestd: UP while it answers, DOWN while it is stopped, UP again after. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true)
class SlurmReadinessIT {

    @Test
    void readinessFollowsSlurmrestd() {
        SlurmHarness slurm = SlurmHarness.ensure(SlurmHarness.Shape.single());
        // the operator starts in the background once it has seen its CRD
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/ready").then()
                .statusCode(200)
                .body("checks.find { it.name == 'slurm' }.data.release", equalTo("22.05.8"))
                .body("checks.find { it.name == 'operator' }.status", equalTo("UP")));

        slurm.stop("slurmrestd");
        try {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    given().get("/q/health/ready").then().statusCode(503)
                            .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN")));
        } finally {
            slurm.up();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                given().get("/q/health/ready").then().statusCode(200));
    }
}
