package dev.colocate.scheduler;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.HealthAndMetricsTest;
import dev.colocate.UnreachableSlurm;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.response.Response;
import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The mutating webhook over HTTP, with an AdmissionReview as the API server sends it. */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(HealthAndMetricsTest.WithLeaderElection.class)
class PodOptInWebhookTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static String fixture() throws IOException {
        try (InputStream in = PodOptInWebhookTest.class.getResourceAsStream("/webhook/pod-create.json")) {
            return new String(in.readAllBytes());
        }
    }

    @Test
    void aPodCreatedInAnOptedInNamespaceIsPatchedToTheColocateScheduler() throws IOException {
        Response response = given().contentType("application/json").body(fixture())
                .post("/webhook/pods").then().statusCode(200)
                .body("apiVersion", equalTo("admission.k8s.io/v1"))
                .body("kind", equalTo("AdmissionReview"))
                .body("response.uid", equalTo("705ab4f5-6393-11e8-b7cc-42010a800002"))
                .body("response.allowed", equalTo(true))
                .body("response.patchType", equalTo("JSONPatch"))
                .extract().response();
        JsonNode patch = JSON.readTree(Base64.getDecoder().decode(response.path("response.patch").toString()));
        assertThat(patch).hasSize(2);
        assertThat(patch.get(0).get("path").asText()).isEqualTo("/spec/schedulerName");
        assertThat(patch.get(0).get("value").asText()).isEqualTo("colocate-scheduler");
        assertThat(patch.get(1).get("path").asText()).isEqualTo("/spec/tolerations/-");
        assertThat(patch.get(1).get("value").get("key").asText()).isEqualTo("colocate.dev/shared");
        assertThat(patch.get(1).get("value").get("effect").asText()).isEqualTo("NoSchedule");
    }

    @Test
    void whatItCannotReadIsAdmittedUnchangedWithAWarningNeverDenied() {
        given().contentType("application/json").body("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}")
                .post("/webhook/pods").then().statusCode(200)
                .body("response.allowed", equalTo(true))
                .body("response.patch", equalTo(null))
                .body("response.warnings[0]", containsString("no request.uid"));
        given().contentType("application/json").body("{not json").post("/webhook/pods").then().statusCode(200)
                .body("response.allowed", equalTo(true))
                .body("response.warnings[0]", containsString("not JSON"));
        given().contentType("application/json").body("""
                {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                 "request": {"uid": "u-1", "object": {"kind": "ConfigMap", "metadata": {"name": "x"}}}}""")
                .post("/webhook/pods").then().statusCode(200)
                .body("response.uid", equalTo("u-1"))
                .body("response.allowed", equalTo(true))
                .body("response.patch", equalTo(null))
                .body("response.warnings[0]", containsString("request.object is not a v1 Pod"));
    }
}
