package dev.colocate.copilot;

import static dev.colocate.testing.TestClusters.aCluster;
import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.Crds;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The copilot finds each SlurmCluster's slurmrestd and JWT Secret by itself, keeps two clusters of one name in two
 * namespaces apart, says on the GenericNode what it still lacks, and lets go of a cluster that is deleted.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@TestProfile(SlurmClusterDiscoveryTest.CopilotOfSlurmClusters.class)
class SlurmClusterDiscoveryTest {

    /**
     * The copilot alone, with no configured Slurm: every Slurm it serves is a SlurmCluster's, in the namespaces the
     * reconciler's setting names (as the chart's app.watchNamespaces sets it).
     */
    public static class CopilotOfSlurmClusters implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.slurm.enabled", "false", "colocate.operator.enabled", "false",
                    "colocate.copilot.slurm-poll-interval", "1s",
                    "quarkus.operator-sdk.controllers.slurmcluster.namespaces", "team-a,team-b,team-c");
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmLinks links;

    @Test
    void eachSlurmClusterIsFoundByItsServiceAndSecret() {
        clusterWithRestApi("team-a", "10.96.0.11");
        clusterWithRestApi("team-b", "10.96.0.12");
        worker("team-a", "k-a");
        worker("team-b", "k-b");

        // team-a's cluster has its JWT Secret: the copilot talks to its slurmrestd, at the Service's address
        client.resource(new SecretBuilder().withNewMetadata().withName("demo-jwt").withNamespace("team-a")
                .endMetadata().addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(new byte[64])).build())
                .create();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(links.discovered("team-a/demo")).hasValueSatisfying(l -> {
                assertThat(l.clusterName()).isEqualTo("demo");
                assertThat(l.endpoint()).isEqualTo("http://10.96.0.11:6820");
            });
            GenericNode a = genericNode("k-a");
            assertThat(a.getSpec().getClusterName()).isEqualTo("demo");
            assertThat(a.getSpec().getAlias()).isEqualTo("demo-worker-cpu-0");
        });
        // team-b's has none yet: its node says so, and refuses pods
        await().atMost(WAIT).untilAsserted(() -> {
            Condition ready = ready("k-b");
            assertThat(ready.getStatus()).isEqualTo("False");
            assertThat(ready.getReason()).isEqualTo("NoSlurm");
            assertThat(ready.getMessage()).isEqualTo("SlurmCluster team-b/demo: its JWT Secret team-b/demo-jwt does "
                    + "not exist yet");
        });
        assertThat(links.discovered("team-b/demo")).isEmpty();

        // a deleted SlurmCluster is let go
        client.resources(SlurmCluster.class).inNamespace("team-a").withName("demo").delete();
        await().atMost(WAIT).untilAsserted(() -> assertThat(links.discovered("team-a/demo")).isEmpty());
    }

    @Test
    void aSlurmClusterOutsideTheServedNamespacesIsNotLinkedAndItsNodesSayWhy() {
        clusterWithRestApi("team-x", "10.96.0.13");
        worker("team-x", "k-x");
        client.resource(new SecretBuilder().withNewMetadata().withName("demo-jwt").withNamespace("team-x")
                .endMetadata().addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(new byte[64])).build())
                .create();

        await().atMost(WAIT).untilAsserted(() -> {
            Condition ready = ready("k-x");
            assertThat(ready.getStatus()).isEqualTo("False");
            assertThat(ready.getReason()).isEqualTo("NoSlurm");
            assertThat(ready.getMessage()).isEqualTo("SlurmCluster team-x/demo: namespace team-x is not one colocate "
                    + "serves (colocate.operator.namespaces, the chart's app.watchNamespaces: team-a,team-b,team-c)");
        });
        assertThat(links.discovered("team-x/demo")).isEmpty();
    }

    @Test
    void anRs256ClusterGetsTokensSignedWithItsRsaKeyAndNamingItsKid() throws Exception {
        String pem = dev.colocate.operator.model.JwtKeys.newPem();
        client.resource(new SecretBuilder().withNewMetadata().withName("rs-jwt").withNamespace("team-c").endMetadata()
                .addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(new byte[64]))
                .addToData("jwt_rs256.key", Base64.getEncoder().encodeToString(pem.getBytes())).build()).create();
        SlurmCluster rs = aCluster("rs").inNamespace("team-c").signingRs256().withJwtSecret("rs-jwt").obj();
        SlurmCluster hs = aCluster("rs").inNamespace("team-c").withJwtSecret("rs-jwt").obj();

        String header = new String(Base64.getUrlDecoder().decode(dev.colocate.slurm.ClusterSlurms.signer(client, rs)
                .mint("slurm", java.time.Instant.now(), Duration.ofMinutes(1)).split("\\.")[0]));
        assertThat(header).contains("\"alg\":\"RS256\"", "\"kid\":\"colocate\"");
        String hsHeader = new String(Base64.getUrlDecoder().decode(dev.colocate.slurm.ClusterSlurms.signer(client,
                hs).mint("slurm", java.time.Instant.now(), Duration.ofMinutes(1)).split("\\.")[0]));
        assertThat(hsHeader).contains("\"alg\":\"HS256\"").doesNotContain("kid");
    }

    private void clusterWithRestApi(String ns, String clusterIp) {
        client.resource(aCluster("demo").inNamespace(ns).withGroup("cpu", 1, "4", "8Gi").obj()).create();
        client.resource(new ServiceBuilder().withNewMetadata().withName("demo-slurmrestd").withNamespace(ns)
                .endMetadata().withNewSpec().withClusterIP(clusterIp).addNewPort().withPort(6820).endPort().endSpec()
                .build()).create();
    }

    private void worker(String ns, String node) {
        client.nodes().resource(aNode(node).allocatable("4", "8Gi").tainted().obj()).create();
        client.resource(aPod("demo-worker-cpu-0").in(ns).on(node).labelled(Labels.COMPONENT, "slurmd")
                .labelled(Labels.CLUSTER, "demo").labelled(Labels.MANAGED_BY, Labels.MANAGER).obj()).create();
    }

    /** The node's Ready condition, once its status has one (the first status write may carry others only). */
    private Condition ready(String node) {
        Condition ready = Conditions.find(genericNode(node).getStatus().getConditions(), "Ready");
        assertThat(ready).as("Ready of %s", node).isNotNull();
        return ready;
    }

    private GenericNode genericNode(String name) {
        GenericNode gn = client.resources(GenericNode.class).withName(name).get();
        assertThat(gn).as("GenericNode %s", name).isNotNull();
        assertThat(gn.getStatus()).isNotNull();
        return gn;
    }
}
