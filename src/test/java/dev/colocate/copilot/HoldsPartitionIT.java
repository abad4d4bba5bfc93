package dev.colocate.copilot;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Hold mode on real Slurm 22.05 whose slurm.conf has no partition of the configured name: never ready, and why. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true)
@TestProfile(HoldsPartitionIT.NoSuchPartition.class)
class HoldsPartitionIT {

    public static class NoSuchPartition implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.copilot.holds-partition", "kube-holds");
        }
    }

    @Test
    void aMissingHoldsPartitionKeepsTheCopilotUnreadyWithTheFix() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/ready")
                .then().statusCode(503)
                .body("checks.find { it.name == 'slurm' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'slurm-holds-partition' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'slurm-holds-partition' }.data.error",
                        containsString("Slurm has no partition kube-holds: add PartitionName=kube-holds")));
    }
}
