package dev.colocate;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.copilot.CopilotLeadership;
import dev.colocate.testing.LeaseRulesStandIn;
import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The endpoints a kubelet and a Prometheus scrape hit. No Slurm runs here ({@link UnreachableSlurm}), so readiness must say Slurm is unreachable while liveness stays UP.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = LeaseRulesStandIn.class)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(HealthAndMetricsTest.WithLeaderElection.class)
public class HealthAndMetricsTest {

    /** Two copilots would elect a leader: this one runs as if it were one of them. */
    public static class WithLeaderElection implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.copilot.leader-election.enabled", "true",
                    "colocate.operator.leader-election.enabled", "true");
        }
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

    @Inject
    KubernetesClient client;

    @Test
    void theOperatorWaitsForItsCrdAndStartsOnceItIsInstalled() {
        given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'operator' }.status", equalTo("DOWN"))
                .body("checks.find { it.name == 'operator' }.data.error",
                        equalTo("the CRD slurmclusters.colocate.dev is not installed"));
        // target/kubernetes is not built yet when the unit tests run: a CRD from the class itself will do here
        client.apiextensions().v1().customResourceDefinitions().resource(CustomResourceDefinitionContext
                .v1CRDFromCustomResourceType(SlurmCluster.class).build()).create();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'operator' }.status", equalTo("UP")));
        // a second replica would wait for this Lease instead of reconciling next to this one
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(client.leases().inNamespace("default")
                .withName("colocate-operator").get().getSpec().getHolderIdentity()).isNotBlank());
    }

    @Inject
    CopilotLeadership leadership;

    @Test
    void theCopilotLeadsByALeaseAndOnlyTheLeaderIsReadyForTheScheduler() {
        await().atMost(Duration.ofSeconds(30)).until(leadership::serving);
        Lease lease = client.leases().inNamespace("default").withName("colocate-copilot").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leadership.identity());
        given().get("/q/health/ready")
                .then().body("checks.find { it.name == 'copilot-leader' }.status", equalTo("UP"))
                .body("checks.find { it.name == 'copilot-leader' }.data.leader", equalTo(leadership.identity()))
                .body("checks.find { it.name == 'copilot-leader' }.data.state", equalTo("serving"));
        // a second replica asking for the same Lease while this one renews it stays a standby
        AtomicBoolean otherLeads = new AtomicBoolean();
        var other = client.leaderElector().withConfig(new LeaderElectionConfigBuilder().withName("colocate-copilot")
                .withLock(new LeaseLock("default", "colocate-copilot", "replica-2"))
                .withLeaseDuration(Duration.ofSeconds(15)).withRenewDeadline(Duration.ofSeconds(10))
                .withRetryPeriod(Duration.ofSeconds(1))
                .withLeaderCallbacks(new LeaderCallbacks(() -> otherLeads.set(true), () -> { }, id -> { }))
                .build()).build().start();
        try {
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(() -> !otherLeads.get());
            assertThat(client.leases().inNamespace("default").withName("colocate-copilot").get().getSpec()
                    .getHolderIdentity()).isEqualTo(leadership.identity());
        } finally {
            other.cancel(true);
        }
    }

    @Test
    void metricsArePrometheusText() {
        // the Accept header of a Prometheus scrape that wants the classic text format
        given().accept("text/plain;version=0.0.4").get("/q/metrics")
                .then().statusCode(200)
                .contentType(containsString("text/plain"))
                .body(containsString("# TYPE colocate_holds_total counter"))
                // the copilot's meters are there from the start, at zero, not only once a node was synced
                .body(containsString("colocate_holds_total{outcome=\"granted\""))
                .body(containsString("colocate_holds_waste{resource=\"cpu\",unit=\"cores\""))
                .body(not(containsString("# EOF")));
    }
}
