package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Twenty real slurmd (Slurm 22.05, 8 CPUs and 32000 MB each) shared with twenty Kubernetes nodes of the mock API
 * server, each running three 500m/1Gi pods: the counts converge, survive a slurmctld restart and a slurmrestd
 * outage, and an overcommit is shown and raised once.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "20"), @ResourceArg(name = "shareMode", value = "gres")})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CopilotResilienceIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final List<Integer> NODES = IntStream.rangeClosed(1, 20).boxed().toList();

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    private static SlurmHarness harness() {
        return SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(20));
    }

    @BeforeEach
    void twentySharedNodesWithThreePodsEach() {
        if (client.nodes().withName("k-1").get() != null) {
            return;
        }
        Crds.apply(client);
        for (int i : NODES) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj()).create();
            for (int p = 0; p < 3; p++) {
                client.resource(aPod("p" + i + "-" + p).on("k-" + i).requesting("500m", "1Gi").obj()).create();
            }
        }
    }

    private Map<String, SlurmNode> slurmNodes() {
        return slurm.nodes().await().atMost(WAIT).stream()
                .collect(java.util.stream.Collectors.toMap(SlurmNode::name, n -> n));
    }

    /** 8 - 1.5 CPUs leave 6 whole ones; 32000 - 3072 MiB are left of the memory. */
    private void allConverged() {
        Map<String, SlurmNode> nodes = slurmNodes();
        for (int i : NODES) {
            assertThat(nodes.get("node" + i).gres()).as("node" + i)
                    .containsEntry("k8scpu", 6L).containsEntry("k8smemory", 32000L - 3072);
            GenericNode gn = client.resources(GenericNode.class).withName("k-" + i).get();
            assertThat(gn).as("GenericNode k-" + i).isNotNull();
            assertThat(gn.getStatus().getAllocatedResources().get(1).getAllocated())
                    .isEqualTo(Map.of("cpu", new Quantity("1500m"), "memory", new Quantity("3Gi")));
        }
    }

    @Test
    @Order(1)
    void countsConvergeOnEveryNode() {
        await().atMost(WAIT).untilAsserted(this::allConverged);
        String metrics = RestAssured.given().accept("text/plain").get("/q/metrics").asString();
        assertThat(metrics)
                .containsPattern("colocate_node_allocated\\{node=\"k-7\",owner=\"kubernetes\",resource=\"cpu\",unit=\"cores\",?} 1\\.5")
                .containsPattern("colocate_slurm_share_writes_total(\\{})? [1-9]")
                .contains("colocate_sync_lag_seconds");
    }

    @Test
    @Order(2)
    void aSlurmctldRestartLosesTheCountsAndTheCopilotWritesThemAgain() {
        await().atMost(WAIT).untilAsserted(this::allConverged);
        SlurmHarness slurmd = harness();

        slurmd.stop("slurmctld");
        slurmd.up();
        // slurmctld came back with slurm.conf's counts (8 and 32000) ...
        // ... and the copilot re-asserts the share on every node: in GRES mode the changed counts alone trigger it
        // (the poll compares the nodes). What only a restart calls for, listing the holds again, is hold mode's,
        // and SlurmctldCrashIT guards it.
        await().atMost(WAIT).untilAsserted(this::allConverged);
    }

    @Test
    @Order(3)
    void aSlurmrestdOutageIsShownAndWhatChangedMeanwhileIsWrittenAfterIt() {
        await().atMost(WAIT).untilAsserted(this::allConverged);
        SlurmHarness slurmd = harness();
        slurmd.stop("slurmrestd");
        try {
            await().atMost(WAIT).untilAsserted(() -> {
                GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
                assertThat(Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.SLURM_REACHABLE))
                        .isFalse();
                assertThat(Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY)).isFalse();
            });
            client.pods().inNamespace("default").withName("p1-0").delete();
            client.pods().inNamespace("default").withName("p1-1").delete();
        } finally {
            slurmd.up();
        }
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(slurmNodes().get("node1").gres()).containsEntry("k8scpu", 7L)
                    .containsEntry("k8smemory", 32000L - 1024);
            GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
            assertThat(Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.SLURM_REACHABLE))
                    .isTrue();
            assertThat(Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY)).isTrue();
        });
    }

    @Test
    @Order(4)
    void anOvercommitIsShownWithTheAmountsAndRaisedOnce() {
        SlurmHarness slurmd = harness();
        String out = slurmd.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node2", "--cpus-per-task=4",
                "--mem=1000", "--gres=k8scpu:4,k8smemory:1000", "--wrap", "sleep 300");
        long job = Long.parseLong(out.strip().split(";")[0]);
        try {
            await().atMost(WAIT).until(() -> slurm.jobs().await().atMost(WAIT).stream()
                    .anyMatch(j -> j.id() == job && j.isRunning()));
            // a pod that reached the node past the extender (a DaemonSet, say): 1.5 + 4 + 3 > 8 CPUs
            client.resource(aPod("intruder").on("k-2").requesting("3", "1Gi").obj()).create();

            await().atMost(WAIT).untilAsserted(() -> {
                GenericNode gn = client.resources(GenericNode.class).withName("k-2").get();
                var over = Conditions.find(gn.getStatus().getConditions(), GenericNodeStatuses.OVERCOMMITTED);
                assertThat(over.getStatus()).isEqualTo("True");
                assertThat(over.getMessage()).isEqualTo(
                        "cpu: Kubernetes holds 4500m and Slurm 4, together 8500m of 8");
            });
            // the next syncs see the same overcommit: still one event
            client.resource(aPod("bystander").on("k-2").requesting("0", "1Mi").obj()).create();
            await().pollDelay(Duration.ofSeconds(6)).atMost(WAIT).untilAsserted(() -> {
                List<Event> events = client.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> "k-2".equals(e.getInvolvedObject().getName())
                                && "Overcommitted".equals(e.getReason()))
                        .toList();
                assertThat(events).singleElement().satisfies(e -> assertThat(e.getType()).isEqualTo("Warning"));
            });
            assertThat(RestAssured.given().accept("text/plain").get("/q/metrics").asString())
                    .containsPattern("colocate_overcommitted_nodes(\\{})? 1\\.0");
        } finally {
            slurm.cancel(job).await().atMost(WAIT);
        }
    }
}
