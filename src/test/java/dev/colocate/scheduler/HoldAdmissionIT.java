package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.AllocatedResources;
import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.copilot.PodRequests;
import dev.colocate.copilot.Resources;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.testing.Crds;
import dev.colocate.testing.NodeInvariant;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import io.quarkus.test.kubernetes.client.KubernetesTestServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The extender in hold mode over HTTP, against real Slurm 22.05 (three 8-CPU nodes): the reserve step of bind is the
 * immediate allocation of the pod's increment, so Slurm itself decides between a pod and a job that races it.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "nodes", value = "3"))
class HoldAdmissionIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final List<String> ALL = List.of("k-1", "k-2", "k-3", "plain");

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @KubernetesTestServer
    KubernetesServer server;

    private final List<Long> jobs = new ArrayList<>();
    private SchedulerStandIn scheduler;

    private SlurmHarness harness() {
        return SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
    }

    @BeforeEach
    void nodes() {
        harness();
        scheduler = new SchedulerStandIn(URI.create(RestAssured.baseURI + ":" + RestAssured.port));
        Crds.apply(client);
        for (int i = 1; i <= 3; i++) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                    .create();
        }
        client.nodes().resource(aNode("plain").allocatable("8", "32000Mi").obj()).create();
        // Ready, and with no Slurm share left from an earlier test's jobs: the ledger has seen them end
        await().atMost(WAIT).until(() -> List.of("k-1", "k-2", "k-3").stream().allMatch(n -> {
            GenericNode gn = client.resources(GenericNode.class).withName(n).get();
            return gn != null && gn.getStatus() != null
                    && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY)
                    && gn.getStatus().getAllocatedResources().stream()
                            .filter(a -> AllocatedResources.OWNER_SLURM.equals(a.getType()))
                            .allMatch(a -> a.getAllocated().values().stream()
                                    .allMatch(q -> q.getNumericalAmount().signum() == 0));
        }));
    }

    @AfterEach
    void cleanUp() {
        jobs.forEach(id -> harness().run("scancel", String.valueOf(id)));
        client.pods().inAnyNamespace().delete();
        client.nodes().delete();
        await().atMost(WAIT).until(() -> slurm.holds("holds").await().atMost(WAIT).isEmpty());
        // the next test starts on empty nodes: its figures are its own
        await().atMost(WAIT).until(() -> slurm.jobs().await().atMost(WAIT).stream().noneMatch(SlurmJob::isActive));
    }

    private long sbatch(String node, int cpus) {
        String out = harness().run("sbatch", "--parsable", "-o", "/dev/null", "-w", node, "--cpus-per-task=" + cpus,
                "--mem=" + cpus * 1000, "--gres=k8scpu:" + cpus + ",k8smemory:" + cpus * 1000, "--wrap",
                "sleep 600");
        long id = Long.parseLong(out.strip().split(";")[0]);
        jobs.add(id);
        return id;
    }

    private String bind(Pod pod, String node) {
        String error = scheduler.bind(pod, node);
        if (error == null) {
            SchedulerStandIn.bindLikeTheApiServer(client, pod);
        }
        return error;
    }

    /** K + S ≤ C on every shared node, and the holds cover the pods bound there. */
    private void invariantHolds() {
        List<SlurmHold> holds = NodeInvariant.holds(client, slurm, 3);
        List<Pod> pods = client.pods().inNamespace("default").list().getItems();
        for (int i = 1; i <= 3; i++) {
            String node = "k-" + i;
            Resources k = pods.stream().filter(p -> node.equals(p.getSpec().getNodeName()))
                    .map(PodRequests::of).reduce(Resources.ZERO, Resources::plus);
            List<SlurmHold> granted = holds.stream().filter(h -> h.running() && node.equals(h.kubernetesNode()))
                    .toList();
            assertThat(granted.stream().mapToLong(SlurmHold::cpus).sum() * 1000).as("held CPUs of " + node)
                    .isGreaterThanOrEqualTo(k.milliCpu());
            assertThat(granted.stream().mapToLong(SlurmHold::memoryMb).sum() * 1024 * 1024)
                    .as("held memory of " + node).isGreaterThanOrEqualTo(k.bytes());
        }
    }

    @Test
    void aStreamOfPodsAndSlurmJobsNeverOvercommitsANode() {
        int bound = 0;
        for (int p = 0; p < 24; p++) {
            if (p % 4 == 0) {
                sbatch("node" + (1 + ThreadLocalRandom.current().nextInt(3)), 2);
            }
            Pod pod = client.resource(aPod("s" + p).requesting("1500m", "3Gi").obj()).create();
            List<String> passing = scheduler.filter(pod, ALL).nodeNames();
            // the node that is not shared always passes; prefer the shared ones, as the scheduler would by score
            for (String node : passing.stream().sorted().toList()) {
                if (bind(pod, node) == null) {
                    bound++;
                    break;
                }
            }
            invariantHolds();
        }
        assertThat(bound).isEqualTo(24);
        assertThat(client.pods().inNamespace("default").list().getItems().stream()
                .filter(p -> "plain".equals(p.getSpec().getNodeName()))).isNotEmpty();
    }

    @Test
    void aSlurmJobThatStartsBetweenFilterAndBindIsSeenBySlurmItself() {
        Pod pod = client.resource(aPod("late").requesting("4", "4Gi").obj()).create();
        assertThat(scheduler.filter(pod, List.of("k-1")).nodeNames()).containsExactly("k-1");

        long job = sbatch("node1", 6);
        await().atMost(WAIT).until(() -> slurm.jobs().await().atMost(WAIT).stream()
                .anyMatch(j -> j.id() == job && j.isRunning()));

        // Slurm refuses the hold, or the pre-check already saw the job in a poll: cleanly either way
        String error = bind(pod, "k-1");
        assertThat(error).containsAnyOf("Slurm refused a hold of 4 CPU", "k-1: Slurm holds 6 CPU");
        assertThat(client.pods().inNamespace("default").withName("late").get().getSpec().getNodeName()).isNull();
        assertThat(client.bindings().inNamespace("default").withName("late").get()).isNull();
        assertThat(client.resources(GenericNode.class).withName("k-1").get().getStatus().getReservations()).isEmpty();
        assertThat(slurm.holds("holds").await().atMost(WAIT)).as("no hold left behind for the refused pod")
                .noneMatch(h -> h.kubernetesNode().equals("k-1"));
        invariantHolds();
    }

    @Test
    void anAdminsDrainShowsInTheMetricsAndGetsNoNewHoldUntilTheNodeIsResumed() {
        // one harness for the test: ensure() rebuilds a Slurm with a drained node, and with it the JWT key
        SlurmHarness slurmNow = harness();
        slurmNow.run("scontrol", "update", "nodename=node3", "state=drain", "reason=disk check");
        try {
            await().atMost(WAIT).untilAsserted(() -> assertThat(metrics())
                    .contains("colocate_node_drained{node=\"k-3\"} 1.0", "colocate_node_drained{node=\"k-1\"} 0.0",
                            "colocate_drained_nodes 1.0"));
            // Slurm grants nothing on a drained node: the pod is refused with Slurm's reason, and nothing is left
            Pod pod = client.resource(aPod("on-drained").requesting("1", "1Gi").obj()).create();
            assertThat(bind(pod, "k-3")).contains("k-3");
            assertThat(client.bindings().inNamespace("default").withName("on-drained").get()).isNull();
            assertThat(slurm.holds("holds").await().atMost(WAIT)).noneMatch(h -> h.kubernetesNode().equals("k-3"));
        } finally {
            slurmNow.run("scontrol", "update", "nodename=node3", "state=resume");
        }
        await().atMost(WAIT).untilAsserted(() -> assertThat(metrics())
                .contains("colocate_node_drained{node=\"k-3\"} 0.0", "colocate_drained_nodes 0.0"));
        Pod pod = client.resource(aPod("after-resume").requesting("1", "1Gi").obj()).create();
        assertThat(bind(pod, "k-3")).isNull();
        invariantHolds();
    }

    @Test
    void aHoldSlurmRefusesWithTheMemoryStepIsAskedForAtTheExactSizeBeforeThePodIsRefused() {
        // a job that leaves node2 1100 MB, started after the last poll (every 5 s): the bind sizes its hold of 1000 MB
        // with the 256 MB step from the free room that poll showed, which Slurm refuses; the exact 1000 MB fits
        String out = harness().run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node2", "--cpus-per-task=1",
                "--mem=30900", "--gres=k8scpu:1,k8smemory:30900", "--wrap", "sleep 600");
        long job = Long.parseLong(out.strip().split(";")[0]);
        jobs.add(job);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> slurm.jobs().await().atMost(WAIT)
                .stream().anyMatch(j -> j.id() == job && j.isRunning()));
        Pod pod = client.resource(aPod("exact").requesting("1", "1000Mi").obj()).create();

        assertThat(bind(pod, "k-2")).isNull();

        assertThat(slurm.holds("holds").await().atMost(WAIT)).filteredOn(h -> h.kubernetesNode().equals("k-2"))
                .extracting(SlurmHold::cpus, SlurmHold::memoryMb)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 1000L));
        invariantHolds();
    }

    @Test
    void aBindingTheApiServerRefusesGivesBackTheHoldAndTheReservation() {
        Pod pod = client.resource(aPod("refused").requesting("2", "2Gi").obj()).create();
        server.expect().post().withPath("/api/v1/namespaces/default/bindings").andReturn(422, new StatusBuilder()
                .withCode(422).withReason("Invalid").withMessage("refused by the test").build()).once();

        String error = scheduler.bind(pod, "k-1");

        assertThat(error).contains("Binding of default/refused to k-1 failed");
        assertThat(client.resources(GenericNode.class).withName("k-1").get().getStatus().getReservations()).isEmpty();
        assertThat(slurm.holds("holds").await().atMost(WAIT)).as("the pod's hold is given back at once")
                .filteredOn(h -> h.kubernetesNode().equals("k-1")).isEmpty();
    }

    @Test
    void aBindingWhoseAnswerIsLostAfterTheApiServerBoundThePodIsCommitted() {
        Pod pod = client.resource(aPod("bound-anyway").requesting("2", "2Gi").obj()).create();
        // the API server bound the pod, but its answer was lost; the client's own retry of the POST (fabric8 retries
        // 5xx answers and I/O errors) then meets the bound pod: 409
        client.pods().inNamespace("default").withName("bound-anyway")
                .edit(p -> new io.fabric8.kubernetes.api.model.PodBuilder(p).editSpec().withNodeName("k-1")
                        .endSpec().build());
        server.expect().post().withPath("/api/v1/namespaces/default/bindings").andReturn(409, new StatusBuilder()
                .withCode(409).withReason("Conflict").withMessage("Operation cannot be fulfilled on pods/binding "
                        + "\"bound-anyway\": pod bound-anyway is already assigned to node \"k-1\"").build()).once();

        assertThat(scheduler.bind(pod, "k-1")).as("bound, and told so").isNull();

        assertThat(slurm.holds("holds").await().atMost(WAIT)).as("the pod keeps its hold")
                .filteredOn(h -> h.kubernetesNode().equals("k-1") && h.running())
                .extracting(SlurmHold::cpus).isNotEmpty();
        invariantHolds();
    }

    private static String metrics() {
        return RestAssured.get("/q/metrics").then().statusCode(200).extract().asString();
    }
}
