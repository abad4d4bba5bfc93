package dev.colocate.slurm;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * An empty or too short HS256 key file (a Secret mounted before it was filled, a placeholder) keeps colocate live but
 * not ready, with a readiness error that names the file and what HS256 needs, and never its content.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = NotSlurmrestd.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "keyBytes", value = "0"))
class ShortJwtKeyTest {

    private static void downWith(String error) {
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> given().get("/q/health/ready").then()
                .statusCode(503)
                .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'slurm' }.data.error", containsString(error))
                .body("checks.find { it.name == 'slurm' }.data.error",
                        containsString(NotSlurmrestd.keyFile.toString())));
    }

    @Test
    void anEmptyThenAShortKeyFileIsDownWithWhatHs256Needs() throws Exception {
        downWith("holds 0 bytes; HS256 needs at least 32");
        Files.writeString(NotSlurmrestd.keyFile, "hunter2-secret");
        downWith("holds 14 bytes; HS256 needs at least 32");
        given().get("/q/health/live").then().statusCode(200);
        given().get("/q/health/ready").then().body(org.hamcrest.Matchers.not(containsString("hunter2")));
    }
}
