package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.HealthAndMetricsTest;
import dev.colocate.UnreachableSlurm;
import dev.colocate.copilot.NodeLocks;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bind whose node a sync keeps locked answers anyway, with a refusal kube-scheduler retries, instead of waiting
 * past the scheduler's extender timeout; nothing is bound.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(HealthAndMetricsTest.WithLeaderElection.class)
class BindDeadlineTest {

    @Inject
    KubernetesClient client;

    @Inject
    NodeLocks locks;

    @Test
    void aBindRefusesWhenItsNodeStaysLockedInsteadOfWaitingWithoutBound() throws Exception {
        client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "16Gi").obj()).create();
        Pod pod = client.resource(aPod("web-0").requesting("1", "1Gi").obj()).create();
        // the copilot leads (and answers) once its lease is taken
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> given()
                .get("/q/health/ready").jsonPath().getString("checks.find { it.name == 'copilot-leader' }.status")
                .equals("UP"));

        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread sync = new Thread(() -> locks.with("k-1", () -> {
            held.countDown();
            try {
                return release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }), "a-long-sync");
        sync.start();
        try {
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            // kube-scheduler would give up after the chart's 30 s: the answer must come before
            String error = given().config(RestAssuredConfig.config().httpClient(HttpClientConfig.httpClientConfig()
                            .setParam("http.socket.timeout", 20_000)))
                    .contentType("application/json").body(Map.of("PodName", "web-0", "PodNamespace", "default",
                            "PodUID", pod.getMetadata().getUid(), "Node", "k-1"))
                    .post("/scheduler/bind").then().statusCode(200).extract().jsonPath().getString("Error");
            assertThat(error).startsWith("node k-1 is busy").endsWith("the scheduler tries the pod again");
            assertThat(client.pods().inNamespace("default").withName("web-0").get().getSpec().getNodeName()).isNull();
            assertThat(given().accept("text/plain").get("/q/metrics").asString())
                    .containsPattern("colocate_admission_refused_total\\{reason=\"node_busy\",?} 1\\.0");
        } finally {
            release.countDown();
            sync.join();
        }
    }
}
