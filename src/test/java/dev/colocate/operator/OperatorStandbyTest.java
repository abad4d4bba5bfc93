package dev.colocate.operator;

import static dev.colocate.testing.TestClusters.aCluster;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.Crds;
import dev.colocate.testing.LeaseRulesStandIn;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas are safe: one that starts while another holds the Lease reconciles nothing, is ready (so that
 * the copilot in the same process keeps serving), and takes over when the Lease is free.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = OperatorStandbyTest.AnotherReplicaLeads.class)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(OperatorStandbyTest.StandbyOperator.class)
class OperatorStandbyTest {

    static final String LEASE = "colocate-operator";
    static final String NAMESPACE = "default";

    public static class StandbyOperator implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.copilot.enabled", "false", "colocate.operator.leader-election.enabled", "true");
        }
    }

    /** The CRDs, and the operator Lease held and freshly renewed by another replica before this one starts. */
    public static class AnotherReplicaLeads implements Consumer<KubernetesServer> {
        @Override
        public void accept(KubernetesServer server) {
            new LeaseRulesStandIn().accept(server);
            Crds.Setup crds = new Crds.Setup();
            crds.accept(server);
            server.getClient().leases().inNamespace(NAMESPACE).resource(new LeaseBuilder().withNewMetadata()
                    .withName(LEASE).endMetadata().withNewSpec().withHolderIdentity("replica-1")
                    .withLeaseDurationSeconds(3600).withAcquireTime(ZonedDateTime.now())
                    .withRenewTime(ZonedDateTime.now()).withLeaseTransitions(0).endSpec().build()).create();
        }
    }

    @Inject
    KubernetesClient client;

    @Test
    void aStandbyReconcilesNothingStaysReadyAndTakesOverWhenTheLeaseIsFree() {
        client.resource(aCluster("standby").inNamespace("t-standby").withGroup("cpu", 1, "4", "8Gi").obj()).create();

        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(client.apps().statefulSets().inNamespace("t-standby").list().getItems())
                    .as("what a standby wrote").isEmpty();
            given().get("/q/health/ready").then().log().ifValidationFails()
                    .body("checks.find { it.name == 'operator' }.status", equalTo("UP"))
                    .body("checks.find { it.name == 'operator' }.data.leader", equalTo(false));
        });

        // the other replica stops and frees the Lease: this one leads and reconciles what it was given meanwhile
        client.leases().inNamespace(NAMESPACE).withName(LEASE).delete();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(client.apps().statefulSets().inNamespace("t-standby").withName("standby-slurmctld").get())
                    .isNotNull();
            assertThat(client.resources(SlurmCluster.class).inNamespace("t-standby").withName("standby").get()
                    .getStatus()).isNotNull();
            given().get("/q/health/ready").then()
                    .body("checks.find { it.name == 'operator' }.data.leader", equalTo(true));
        });
    }
}
