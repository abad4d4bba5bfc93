package dev.colocate.operator;

import static dev.colocate.testing.TestClusters.aCluster;
import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.JwtKeys;
import dev.colocate.slurm.SlurmJwt;
import dev.colocate.testing.Crds;
import dev.colocate.testing.Kubelet;
import dev.colocate.testing.SlurmHarnessResource;
import dev.colocate.testing.WorkloadControllerStandIn;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator's output runs: the ConfigMap, Secrets and pod templates it writes for a sample SlurmCluster are run
 * on this machine as a kubelet would (each pod in its own network, mount and UTS namespaces, its volumes laid out
 * from the API objects), with the image's entrypoint and this host's Slurm 22.05, and make a working cluster. The
 * copilot in the same process finds that cluster by itself and writes its GenericNodes, while it serves the
 * configured Slurm (the 22.05 harness) next to it.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true)
class OperatorOutputRunsIT {

    private static final String NS = "slurm";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    KubernetesClient client;

    @Test
    void theRenderedClusterRunsAJobAndSlurmrestdAcceptsTheGeneratedJwt() throws Exception {
        // RS256: colocate signs with the generated RSA key, slurmctld verifies against the rendered JWKS
        client.resource(aCluster("demo").inNamespace(NS).withGroup("cpu", 2, "4", "8Gi")
                .withGroup("gpu", 1, "4", "8Gi").withGpus(2).signingRs256().obj()).create();
        WorkloadControllerStandIn controllers = new WorkloadControllerStandIn(client, NS);
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            controllers.rollOut();
            var ready = Conditions.find(client.resources(SlurmCluster.class).inNamespace(NS).withName("demo").get()
                    .getStatus().getConditions(), "Ready");
            assertThat(ready.getStatus()).isEqualTo("True");
            assertThat(client.configMaps().inNamespace(NS).withName("demo-slurm-config").get().getData())
                    .containsKey("jwks.json");
        });

        Path dir = Files.createTempDirectory("colocate-kubelet");
        try (Kubelet kubelet = new Kubelet(client, NS, dir)) {
            StatefulSet ctld = client.apps().statefulSets().inNamespace(NS).withName("demo-slurmctld").require();
            StatefulSet workers = client.apps().statefulSets().inNamespace(NS).withName("demo-worker-cpu").require();
            Deployment rest = client.apps().deployments().inNamespace(NS).withName("demo-slurmrestd").require();
            kubelet.run("demo-slurmctld-0", ctld.getSpec().getTemplate(), ctld.getSpec().getServiceName(), null);
            for (int i = 0; i < workers.getSpec().getReplicas(); i++) {
                kubelet.run("demo-worker-cpu-" + i, workers.getSpec().getTemplate(),
                        workers.getSpec().getServiceName(), null);
            }
            // the stand-in gives the GPU pod two GPU devices, as the device plugin would
            StatefulSet gpuWorkers = client.apps().statefulSets().inNamespace(NS).withName("demo-worker-gpu")
                    .require();
            kubelet.run("demo-worker-gpu-0", gpuWorkers.getSpec().getTemplate(),
                    gpuWorkers.getSpec().getServiceName(), null);
            kubelet.run("demo-slurmrestd-x7k2p", rest.getSpec().getTemplate(), null, "demo-slurmrestd");

            await().atMost(WAIT).untilAsserted(() -> assertThat(kubelet.exec("demo-slurmctld-0",
                    "sinfo", "-h", "-N", "-p", "cpu", "-t", "idle", "-o", "%N").lines().distinct())
                    .containsExactlyInAnyOrder("demo-worker-cpu-0", "demo-worker-cpu-1"));
            assertThat(kubelet.exec("demo-slurmctld-0", "srun", "-N2", "-p", "cpu", "hostname").lines())
                    .containsExactlyInAnyOrder("demo-worker-cpu-0", "demo-worker-cpu-1");
            // the GPU node registers with both GPUs (a count without devices would drain it) and a job gets them
            await().atMost(WAIT).untilAsserted(() -> assertThat(kubelet.exec("demo-slurmctld-0",
                    "sinfo", "-h", "-N", "-p", "gpu", "-o", "%N %T %G").strip())
                    .startsWith("demo-worker-gpu-0 idle ").contains("gpu:2"));
            assertThat(kubelet.exec("demo-slurmctld-0", "srun", "-p", "gpu", "--gres=gpu:2", "printenv",
                    "CUDA_VISIBLE_DEVICES").strip()).isEqualTo("0,1");

            // the copilot finds the cluster's slurmrestd and JWT Secret by itself, and writes its GenericNodes
            for (int i = 0; i < workers.getSpec().getReplicas(); i++) {
                client.nodes().resource(aNode("k8s-" + i).allocatable("8", "16Gi").tainted().obj()).create();
                kubelet.report("demo-worker-cpu-" + i, workers.getSpec().getTemplate(), "k8s-" + i);
            }
            kubelet.expose("demo-slurmrestd", "demo-slurmrestd-x7k2p");
            // next to it, a node of the configured Slurm (this host's 22.05 harness), with a pod Slurm holds room for
            client.nodes().resource(aNode("k8s-ext").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                    .create();
            client.resource(aPod("web-0").on("k8s-ext").requesting("2", "1Gi").obj()).create();
            await().atMost(WAIT).untilAsserted(() -> {
                GenericNode ext = client.resources(GenericNode.class).withName("k8s-ext").get();
                assertThat(ext).isNotNull();
                assertThat(ext.getSpec().getClusterName()).isEqualTo("external");
                assertThat(ext.getSpec().getAlias()).isEqualTo("node1");
                assertThat(Conditions.isTrue(ext.getStatus().getConditions(), "Ready"))
                        .as("%s", ext.getStatus().getConditions()).isTrue();
                assertThat(ext.getStatus().getHolds().getCpu()).isEqualTo(new Quantity("2"));
                for (int i = 0; i < 2; i++) {
                    GenericNode gn = client.resources(GenericNode.class).withName("k8s-" + i).get();
                    assertThat(gn).isNotNull();
                    assertThat(gn.getSpec().getClusterName()).isEqualTo("demo");
                    assertThat(gn.getSpec().getAlias()).isEqualTo("demo-worker-cpu-" + i);
                    assertThat(Conditions.isTrue(gn.getStatus().getConditions(), "SlurmReachable"))
                            .as("%s", gn.getStatus().getConditions()).isTrue();
                    assertThat(Conditions.isTrue(gn.getStatus().getConditions(), "Ready")).isTrue();
                }
            });

            String token = SlurmJwt.fromKeyFile(kubelet.secretFile("demo-jwt", "jwt_hs256.key"))
                    .mint("slurm", Instant.now(), Duration.ofMinutes(5));
            HttpRequest diag = HttpRequest.newBuilder(URI.create("http://" + kubelet.ip("demo-slurmrestd-x7k2p")
                    + ":6820/slurm/v0.0.38/diag")).header("X-SLURM-USER-NAME", "slurm")
                    .header("X-SLURM-USER-TOKEN", token).timeout(Duration.ofSeconds(5)).build();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                HttpResponse<String> answer = http.send(diag, HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                assertThat(answer.body()).contains("\"release\": \"22.05.8\"");
            });
            // RS256 with the Secret's RSA key is accepted; the same key id on another key is not
            String rs256 = SlurmJwt.rs256(JwtKeys.privateKey(Files.readString(kubelet.secretFile("demo-jwt",
                    "jwt_rs256.key")), "generated key"), JwtKeys.KID).mint("slurm", Instant.now(), Duration.ofMinutes(5));
            String forged = SlurmJwt.rs256(JwtKeys.privateKey(JwtKeys.newPem(), "other key"), JwtKeys.KID)
                    .mint("slurm", Instant.now(), Duration.ofMinutes(5));
            assertThat(http.send(HttpRequest.newBuilder(diag, (n, v) -> true).setHeader("X-SLURM-USER-TOKEN", rs256)
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            assertThat(http.send(HttpRequest.newBuilder(diag, (n, v) -> true).setHeader("X-SLURM-USER-TOKEN", forged)
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isNotEqualTo(200);
        }
    }

    @Test
    void theBackupControllerTakesOverWithTheJobQueueWhenTheFirstStops() throws Exception {
        // SlurmctldTimeout from the user's slurm.conf, so that the takeover happens within the test's patience
        SlurmCluster ha = aCluster("ha").inNamespace(NS).withGroup("cpu", 1, "4", "8Gi")
                .withFile("slurm.conf", "SlurmctldTimeout=6\n").obj();
        ha.getSpec().getHeadNodeConfig().setBackupController(true);
        client.resource(ha).create();
        WorkloadControllerStandIn controllers = new WorkloadControllerStandIn(client, NS);
        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            controllers.rollOut();
            assertThat(Conditions.isTrue(client.resources(SlurmCluster.class).inNamespace(NS).withName("ha").get()
                    .getStatus().getConditions(), "Ready")).isTrue();
        });

        Path dir = Files.createTempDirectory("colocate-kubelet");
        try (Kubelet kubelet = new Kubelet(client, NS, dir)) {
            StatefulSet ctld = client.apps().statefulSets().inNamespace(NS).withName("ha-slurmctld").require();
            StatefulSet workers = client.apps().statefulSets().inNamespace(NS).withName("ha-worker-cpu").require();
            assertThat(ctld.getSpec().getReplicas()).isEqualTo(2);
            kubelet.run("ha-slurmctld-0", ctld.getSpec().getTemplate(), ctld.getSpec().getServiceName(), null);
            kubelet.run("ha-slurmctld-1", ctld.getSpec().getTemplate(), ctld.getSpec().getServiceName(), null);
            kubelet.run("ha-worker-cpu-0", workers.getSpec().getTemplate(), workers.getSpec().getServiceName(), null);

            // scontrol ping exits 1 while a controller is down
            await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
                assertThat(kubelet.exec("ha-worker-cpu-0", "scontrol", "ping"))
                        .as(() -> "the backup's log:\n" + kubelet.log("ha-slurmctld-1"))
                        .contains("Slurmctld(primary) at ha-slurmctld-0 is UP")
                        .contains("Slurmctld(backup) at ha-slurmctld-1 is UP");
                assertThat(kubelet.exec("ha-worker-cpu-0", "sinfo", "-h", "-N", "-t", "idle", "-o", "%N").lines())
                        .contains("ha-worker-cpu-0");
            });
            String job = kubelet.exec("ha-worker-cpu-0", "sbatch", "--parsable", "-N1", "--wrap", "sleep 600").strip();

            // The first controller's node fails. (Were its Pod deleted instead, its name would stop resolving, and
            // Slurm 22.05's clients then fail to reach the backup too, until the StatefulSet brings the pod back.)
            kubelet.fail("ha-slurmctld-0");

            // the backup answers, from the shared claim it still knows the job, and it runs new ones
            await().atMost(WAIT).untilAsserted(() -> assertThat(pingBackup(kubelet))
                    .contains("Slurmctld(primary) at ha-slurmctld-0 is DOWN")
                    .contains("Slurmctld(backup) at ha-slurmctld-1 is UP"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(kubelet.exec("ha-worker-cpu-0", "squeue", "-h",
                    "-j", job, "-o", "%T").strip()).isEqualTo("RUNNING"));
            assertThat(kubelet.exec("ha-worker-cpu-0", "scancel", job)).isEmpty();
            // (srun may first say it waits, while the cancelled job's node is freed)
            assertThat(kubelet.exec("ha-worker-cpu-0", "srun", "-N1", "hostname").lines())
                    .endsWith("ha-worker-cpu-0");
        }
    }

    /** scontrol ping's answer; it exits 1 while the primary is down, which is what is waited for here. */
    private static String pingBackup(Kubelet kubelet) {
        try {
            return kubelet.exec("ha-worker-cpu-0", "scontrol", "ping");
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }
}
