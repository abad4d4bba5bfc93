package dev.colocate;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import org.junit.jupiter.api.Test;

/**
 * The endpoints a kubelet and a Prometheus scrape hit. No Slurm runs here ({@link UnreachableSlurm}), so readiness must say Slurm is unreachable while liveness stays UP.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
class HealthAndMetricsTest {

    @Test
    void livenessIsUpEvenWithoutSlurm() {
        given().get("/q/health/live")
                .then().statusCode(200)
                .body("status", equalTo("UP"));
    }

    @Test
    void readinessIsDownWithTheReasonWhileSlurmrestdIsUnreachable() {
        given().get("/q/health/ready")
                .then().log().ifValidationFails().statusCode(503)
                .body("status", equalTo("DOWN"))
                .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'slurm' }.data.error", containsString("Connection refused"))
                .body("checks.name", hasItem("operator"));
    }

    @Test
    void metricsArePrometheusText() {
        // the Accept header of a Prometheus scrape that wants the classic text format
        given().accept("text/plain;version=0.0.4").get("/q/metrics")
                .then().statusCode(200)
                .contentType(containsString("text/plain"))
                .body(containsString("# TYPE jvm_threads_live_threads gauge"))
                .body(not(containsString("# EOF")));
    }
}
