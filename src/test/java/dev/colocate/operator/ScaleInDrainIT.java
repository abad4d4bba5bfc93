package dev.colocate.operator;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.Crds;
import dev.colocate.testing.ServiceProxyStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.WorkloadControllerStandIn;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Scale-in drains before it removes, in a real Slurm (24.11, over REST): the SlurmCluster's workers are the harness's
 * nodes (named as the operator names them), its slurmrestd Service reaches the harness's slurmrestd through a
 * kube-proxy stand-in, and its JWT Secret holds the harness's key.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@TestProfile(SlurmClusterOperatorIT.OperatorOnly.class)
class ScaleInDrainIT {

    private static final String NS = "scalein";
    private static final Duration WAIT = Duration.ofSeconds(45);
    /** The Service's cluster IP: a loopback address of its own, so that port 6820 is free there. */
    private static final String CLUSTER_IP = "127.0.0.68";

    @Inject
    KubernetesClient client;

    private SlurmHarness slurm;

    @AfterAll
    static void stopSlurm() {
        SlurmHarness.shutdown();
    }

    @Test
    void theNodesAScaleInRemovesAreDrainedFirstAndGoOnlyOnceTheirJobsEnd() throws Exception {
        slurm = SlurmHarness.ensure(new SlurmHarness.Shape(3, 4, 8192, false)
                .on(SlurmHarness.Release.SLURM_24_11).named("drain-worker-cpu-", 0));
        client.resource(new SecretBuilder().withNewMetadata().withName("harness-jwt").withNamespace(NS).endMetadata()
                .addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(Files.readAllBytes(slurm.jwtKey())))
                .build()).create();
        client.resource(aCluster("drain").inNamespace(NS).withGroup("cpu", 3, "4", "8Gi").withJwtSecret("harness-jwt")
                .obj()).create();
        WorkloadControllerStandIn controllers = new WorkloadControllerStandIn(client, NS);
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            controllers.rollOut();
            assertThat(condition("Ready")).isEqualTo("True/Ready");
        });
        client.services().inNamespace(NS).withName("drain-slurmrestd")
                .edit(s -> new ServiceBuilder(s).editSpec().withClusterIP(CLUSTER_IP).endSpec().build());
        try (ServiceProxyStandIn proxy = new ServiceProxyStandIn(CLUSTER_IP, 6820,
                URI.create(slurm.restUrl()).getPort())) {
            long job = Long.parseLong(slurm.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "drain-worker-cpu-2",
                    "--wrap", "sleep 600").strip().split(";")[0]);
            await().atMost(WAIT).until(() -> slurm.run("squeue", "-h", "-j", "" + job, "-o", "%T").contains("RUNNING"));

            // 3 -> 1: both leaving nodes drain; node 2 runs a job, so nothing goes (the StatefulSet removes from the top)
            scale(1);
            await().atMost(WAIT).untilAsserted(() -> {
                controllers.rollOut();
                assertThat(drainReason("drain-worker-cpu-1")).isEqualTo("colocate: scale-in");
                assertThat(drainReason("drain-worker-cpu-2")).isEqualTo("colocate: scale-in");
                assertThat(condition("WorkersReady")).isEqualTo("False/ScalingIn");
                assertThat(message("WorkersReady")).contains("scale-in cpu: draining drain-worker-cpu-2 (1 job)");
            });
            assertThat(workers().getSpec().getReplicas()).isEqualTo(3);
            assertThat(drainReason("drain-worker-cpu-0")).as("the node that stays").isEmpty();

            // back to 3: the scale-in is undone, and its drains with it
            scale(3);
            await().atMost(WAIT).untilAsserted(() -> {
                controllers.rollOut();
                assertThat(drainReason("drain-worker-cpu-1")).isEmpty();
                assertThat(drainReason("drain-worker-cpu-2")).isEmpty();
                assertThat(condition("WorkersReady")).isEqualTo("True/RolledOut");
            });

            // 3 -> 2: node 2 drains, and goes once its job ends
            scale(2);
            await().atMost(WAIT).untilAsserted(() -> {
                controllers.rollOut();
                assertThat(drainReason("drain-worker-cpu-2")).isEqualTo("colocate: scale-in");
                assertThat(current().getStatus().getLeavingWorkers()).containsExactly("drain-worker-cpu-2");
            });
            assertThat(workers().getSpec().getReplicas()).isEqualTo(3);
            slurm.run("scancel", String.valueOf(job));
            await().atMost(WAIT).untilAsserted(() -> {
                controllers.rollOut();
                assertThat(workers().getSpec().getReplicas()).isEqualTo(2);
                assertThat(current().getStatus().getLeavingWorkers()).isEmpty();
                assertThat(condition("WorkersReady")).isEqualTo("True/RolledOut");
            });
            assertThat(client.v1().events().inNamespace(NS).list().getItems())
                    .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("ScaleInDraining"))
                    .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("ScaleInUndone"));
        }
    }

    private void scale(int replicas) {
        SlurmCluster c = current();
        c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(replicas);
        client.resource(c).update();
    }

    private SlurmCluster current() {
        return client.resources(SlurmCluster.class).inNamespace(NS).withName("drain").get();
    }

    private StatefulSet workers() {
        return client.apps().statefulSets().inNamespace(NS).withName("drain-worker-cpu").get();
    }

    private String condition(String type) {
        var c = Conditions.find(current().getStatus().getConditions(), type);
        return c.getStatus() + "/" + c.getReason();
    }

    private String message(String type) {
        return Conditions.find(current().getStatus().getConditions(), type).getMessage();
    }

    /** The node's drain reason, or "" when it is not drained. */
    private String drainReason(String node) {
        return slurm.run("sinfo", "-h", "-R", "-n", node, "-o", "%E").strip();
    }
}
