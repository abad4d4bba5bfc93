package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.testing.ChartInstall;
import dev.colocate.testing.KubeAdmin;
import dev.colocate.testing.RealKubernetes;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A copilot that starts while an earlier leader's Lease is still held (a rolling restart, or the old pod hung but
 * not yet dead): it waits as a standby, not ready and writing nothing, until the Lease expires; then it takes over
 * and holds Kubernetes' share in real Slurm 22.05. Leader election is on here as in production (and in every test).
 */
@QuarkusTest
@Tag("slurm")
@Tag("kube")
@QuarkusTestResource(value = CopilotTakeoverIT.HeldLease.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true)
class CopilotTakeoverIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final String OLD_LEADER = "copilot-old-7f9c";
    /** When the old leader renewed its Lease last: as the copilot starts. */
    static volatile ZonedDateTime renewed;

    /** The Lease as the old leader left it in the release's namespace: renewed just now, for 15 s. */
    public static class HeldLease extends RealKubernetes {
        @Override
        protected void before(KubernetesClient admin) {
            renewed = ZonedDateTime.now(ZoneOffset.UTC);
            admin.resource(new LeaseBuilder().withNewMetadata().withName("colocate-copilot")
                    .withNamespace(ChartInstall.RELEASE_NAMESPACE).endMetadata().withNewSpec()
                    .withHolderIdentity(OLD_LEADER)
                    .withLeaseDurationSeconds(15).withAcquireTime(renewed).withRenewTime(renewed)
                    .withLeaseTransitions(0).endSpec().build()).create();
        }
    }

    @KubeAdmin
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @Inject
    CopilotLeadership leadership;

    @Test
    void aCopilotWaitsForTheOldLeadersLeaseToExpireAndThenHoldsTheShare() {
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        client.resource(aPod("web-0").on("node-a").requesting("1", "1Gi").obj()).create();

        // a standby: not ready, names the leader, and neither writes GenericNodes nor asks Slurm for holds
        RestAssured.given().get("/q/health/ready").then().statusCode(503)
                .body("checks.find { it.name == 'copilot-leader' }.data.state", equalTo("standby"));
        await().atMost(WAIT).untilAsserted(() -> RestAssured.given().get("/q/health/ready").then()
                .body("checks.find { it.name == 'copilot-leader' }.data.leader", equalTo(OLD_LEADER)));
        assertThat(client.resources(GenericNode.class).withName("node-a").get()).isNull();
        assertThat(holds()).isEmpty();

        // the old leader renews no more: once its Lease expires this copilot leads, and only then
        await().atMost(WAIT).until(leadership::serving);
        Lease lease = client.leases().inNamespace(ChartInstall.RELEASE_NAMESPACE).withName("colocate-copilot").get();
        assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(leadership.identity());
        assertThat(lease.getSpec().getAcquireTime())
                .as("taken over only after the old Lease's 15 s").isAfterOrEqualTo(renewed.plusSeconds(15));
        await().atMost(WAIT).untilAsserted(() -> {
            RestAssured.given().get("/q/health/ready").then().statusCode(200);
            assertThat(holds()).extracting(SlurmHold::kubernetesNode).contains("node-a");
            GenericNode gn = client.resources(GenericNode.class).withName("node-a").get();
            assertThat(gn).isNotNull();
            assertThat(gn.getStatus().getHolds().getCount()).isPositive();
        });
        client.nodes().withName("node-a").delete();
        await().atMost(WAIT).until(() -> holds().isEmpty());
    }

    private List<SlurmHold> holds() {
        return slurm.holds("holds").await().atMost(WAIT);
    }
}
