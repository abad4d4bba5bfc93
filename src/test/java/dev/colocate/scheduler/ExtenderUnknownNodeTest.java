package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import dev.colocate.HealthAndMetricsTest;
import dev.colocate.UnreachableSlurm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A node name colocate has no Node for is never passed as a free node: filter, prioritize and bind fail it closed.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(HealthAndMetricsTest.WithLeaderElection.class)
class ExtenderUnknownNodeTest {

    private static final String ARGS = """
            {"Pod": {"metadata": {"name": "p", "namespace": "default"},
                     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
             "NodeNames": ["plain", "ghost"]}""";

    @Inject
    KubernetesClient client;

    @Test
    void anUnknownNodeIsUnresolvableInFilterAndScoresNothing() {
        client.nodes().resource(aNode("plain").allocatable("8", "16Gi").obj())
                .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
        // the copilot leads (and answers) once its lease is taken; the node is in its cache once it passes
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> given()
                .contentType("application/json").body(ARGS).post("/scheduler/filter").then().statusCode(200)
                .body("NodeNames", contains("plain")));

        given().contentType("application/json").body(ARGS).post("/scheduler/filter").then().statusCode(200)
                .body("FailedAndUnresolvableNodes.ghost",
                        equalTo("node ghost is not known to colocate (no such Node in its cache of the API server)"));
        // a node filter takes out is counted as one, under its own meter, not as a refused pod
        String metrics = given().accept("text/plain").get("/q/metrics").asString();
        org.assertj.core.api.Assertions.assertThat(metrics)
                .containsPattern("colocate_filter_rejected_nodes_total\\{reason=\"unjudged\",?} [1-9]")
                .doesNotContain("colocate_admission_refused_total{reason=\"slurm_unreachable\"");
        given().contentType("application/json").body(ARGS).post("/scheduler/prioritize").then().statusCode(200)
                .body("find { it.Host == 'plain' }.Score", equalTo(10))
                .body("find { it.Host == 'ghost' }.Score", equalTo(0));
    }

    @Test
    void aBindToAnUnknownNodeIsRefusedAndBindsNothing() {
        client.nodes().resource(aNode("plain").allocatable("8", "16Gi").obj())
                .createOr(io.fabric8.kubernetes.client.dsl.NonDeletingOperation::update);
        Pod pod = client.resource(aPod("lost").requesting("1", "1Gi").obj()).create();
        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> given()
                .contentType("application/json").body(ARGS).post("/scheduler/filter").then().statusCode(200)
                .body("NodeNames", contains("plain")));

        given().contentType("application/json").body(Map.of("PodName", "lost", "PodNamespace", "default",
                        "PodUID", pod.getMetadata().getUid(), "Node", "ghost"))
                .post("/scheduler/bind").then().statusCode(200)
                .body("Error", equalTo("node ghost is not known to colocate (no such Node in its cache of the API "
                        + "server); the scheduler tries the pod again"));
        assertThat(client.bindings().inNamespace("default").list().getItems()).isEmpty();
        assertThat(given().accept("text/plain").get("/q/metrics").asString())
                .containsPattern("colocate_admission_refused_total\\{reason=\"unknown_node\",?} 1\\.0");

        // a known node that is not shared is bound directly, as before
        given().contentType("application/json").body(Map.of("PodName", "lost", "PodNamespace", "default",
                        "PodUID", pod.getMetadata().getUid(), "Node", "plain"))
                .post("/scheduler/bind").then().statusCode(200).body("Error", org.hamcrest.Matchers.emptyOrNullString());
        assertThat(client.bindings().inNamespace("default").list().getItems())
                .extracting(b -> b.getTarget().getName()).containsExactly("plain");
    }
}
