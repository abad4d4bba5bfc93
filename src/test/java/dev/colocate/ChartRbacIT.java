package dev.colocate;

import static dev.colocate.testing.TestClusters.aCluster;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.GenericNode;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.ChartedColocate;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.KubeHarness;
import dev.colocate.testing.RealSlurm;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * colocate as helm/colocate installs it, on the real API server: it authenticates as the chart's ServiceAccount,
 * with exactly the rules the chart renders, and every role does its work with no 403 in its log. The copilot syncs
 * real Slurm 22.05's nodes into GenericNodes, the extender holds and binds a pod through a real Binding, the operator
 * reconciles a SlurmCluster in a served namespace into objects the controller-manager runs and deletes them again,
 * and both lead by Leases.
 */
@RealSlurm(nodes = 2)
@Tag("kube")
class ChartRbacIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final String RELEASE = ChartedColocate.RELEASE;
    static final String SERVED = "rbac-it-served";
    static final String APPS = "rbac-it-apps";
    static final Pattern FORBIDDEN = Pattern.compile("(?i)\\b403\\b|forbidden");

    static KubeHarness kube;
    static KubernetesClient admin;
    static ChartedColocate charted;
    static SlurmHarness slurm;

    @BeforeAll
    static void install(SlurmHarness harness) {
        slurm = harness;
        kube = KubeHarness.ensure();
        admin = kube.admin();
        charted = ChartedColocate.install(kube, slurm, SERVED, "rbac-", 2);
        KubeHarness.namespace(admin, APPS, Map.of());
    }

    @AfterAll
    static void uninstall() {
        admin.namespaces().withName(APPS).delete();
        charted.uninstall();
        admin.close();
    }

    @Test
    void everyRoleDoesItsWorkAsTheChartsServiceAccountWithNoForbiddenAnswer() throws Exception {
        Path log = Path.of("target", "chart-rbac-it.log");
        Files.deleteIfExists(log);
        try (ColocateProcess colocate = charted.start(log, Map.of("colocate.copilot.resync-interval", "3s"))
                .awaitReady(WAIT)) {
            // the copilot
            GenericNodes.awaitReady(admin, WAIT, "rbac-1", "rbac-2");
            assertThat(admin.leases().inNamespace(RELEASE).list().getItems()).extracting(l -> l.getMetadata()
                    .getName()).contains("colocate-copilot");

            // the extender: a hold in Slurm, then the real Binding
            Pod pod = admin.resource(aPod("web-0").in(APPS).scheduledBy("colocate-scheduler")
                    .requesting("2", "2Gi").obj()).create();
            assertThat(new SchedulerStandIn(colocate.uri()).bind(pod, "rbac-1")).isNull();
            await().atMost(WAIT).untilAsserted(() -> {
                Pod bound = admin.pods().inNamespace(APPS).withName("web-0").get();
                assertThat(bound.getSpec().getNodeName()).isEqualTo("rbac-1");
                assertThat(bound.getStatus().getPhase()).as("kwok runs it").isEqualTo("Running");
                assertThat(admin.resources(GenericNode.class).withName("rbac-1").get().getStatus().getHolds()
                        .getJobIds()).isNotEmpty();
            });

            // the operator
            SlurmCluster cluster = aCluster("rbac").inNamespace(SERVED).withGroup("cpu", 0, "8", "32000Mi").obj();
            cluster.getMetadata().setUid(null);
            admin.resource(cluster).create();
            await().atMost(WAIT).untilAsserted(() -> assertThat(kube.kubectl("-n", SERVED, "get",
                    "statefulsets,deployments,services,secrets,configmaps,slurmclusters", "-o", "name"))
                    .contains("statefulset.apps/rbac-slurmctld", "deployment.apps/rbac-slurmrestd",
                            "service/rbac-slurmrestd"));
            await().atMost(WAIT).untilAsserted(() -> assertThat(admin.resources(SlurmCluster.class)
                    .inNamespace(SERVED).withName("rbac").get().getStatus()).isNotNull());
            Lease operatorLease = await().atMost(WAIT).until(() -> admin.leases().inNamespace(RELEASE).list()
                    .getItems().stream().filter(l -> !"colocate-copilot".equals(l.getMetadata().getName()))
                    .findFirst().orElse(null), l -> l != null);
            assertThat(operatorLease.getSpec().getHolderIdentity()).isNotBlank();
            admin.resources(SlurmCluster.class).inNamespace(SERVED).withName("rbac").delete();
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(admin.resources(SlurmCluster.class).inNamespace(SERVED).withName("rbac").get())
                        .isNull();
                assertThat(admin.apps().statefulSets().inNamespace(SERVED).list().getItems())
                        .as("garbage-collected through their owner references").isEmpty();
            });

            admin.pods().inNamespace(APPS).withName("web-0").delete();
            await().atMost(WAIT).until(() -> slurm.run("squeue", "-h", "-p", "holds").isBlank());
        } finally {
            slurm.run("scancel", "-p", "holds");
        }

        List<String> forbidden = Files.readAllLines(log, StandardCharsets.ISO_8859_1).stream()
                .filter(l -> FORBIDDEN.matcher(l).find()).toList();
        assertThat(forbidden).as("what the API server refused colocate, in %s", log).isEmpty();
    }

    @Test
    void theServiceAccountReadsNoSecretExecsIntoNoPodAndWritesNoPodOutsideWhatItServes() {
        String sa = "system:serviceaccount:" + RELEASE + ":colocate";
        String elsewhere = kube.kubectl("auth", "can-i", "--list", "--as=" + sa, "-n", APPS);

        assertThat(elsewhere.lines().filter(l -> l.startsWith("secrets") || l.startsWith("pods/exec"))).isEmpty();
        assertThat(elsewhere.lines().filter(l -> l.startsWith("pods ")).findFirst().orElseThrow())
                .contains("[get list watch]");
        String served = kube.kubectl("auth", "can-i", "--list", "--as=" + sa, "-n", SERVED);
        assertThat(served).containsPattern("(?m)^secrets\\s").containsPattern("(?m)^pods/exec\\s");
    }
}
