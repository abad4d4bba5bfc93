package dev.colocate.slurm;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A wrong colocate.slurm.rest-url gets a readiness check that says what is wrong there, rather than a parse error or
 * a request that never ends: a page that is not Slurm's JSON, or a server that does not answer.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = NotSlurmrestd.class, restrictToAnnotatedClass = true)
class NotSlurmrestdTest {

    @Test
    void anHtmlPageAtTheUrlIsNamedAsNotSlurmrestd() {
        NotSlurmrestd.mode = NotSlurmrestd.Mode.HTML;
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> given().get("/q/health/ready").then()
                .statusCode(503)
                .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'slurm' }.data.error", containsString("is not slurmrestd"))
                .body("checks.find { it.name == 'slurm' }.data.error", containsString("text/html"))
                .body("checks.find { it.name == 'slurm' }.data.error", containsString("Sign in")));
    }

    @Test
    void aSlurmrestdThatNeverAnswersIsDownWithinItsTimeout() {
        NotSlurmrestd.mode = NotSlurmrestd.Mode.HANG;
        try {
            // the check itself answers (within the request timeout and its retries), and says why it is down
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> given().get("/q/health/ready").then()
                    .statusCode(503)
                    .body("checks.find { it.name == 'slurm' }.status", equalTo("DOWN"))
                    .body("checks.find { it.name == 'slurm' }.data.error", containsString("did not answer within")));
        } finally {
            NotSlurmrestd.mode = NotSlurmrestd.Mode.HTML;
        }
    }
}
