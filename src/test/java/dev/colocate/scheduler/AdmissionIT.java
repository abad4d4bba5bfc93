package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.testing.Crds;
import dev.colocate.testing.NodeInvariant;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The test plays kube-scheduler against the extender over HTTP, with three real slurmd (8 CPUs, 32000 MB) shared
 * with three mock-API nodes and one node that is not shared. The mock stores Bindings without binding, so a
 * test-side stand-in does what the API server would: it sets the pod's nodeName from the Binding.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "3"), @ResourceArg(name = "shareMode", value = "gres")})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AdmissionIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final List<String> SHARED = List.of("k-1", "k-2", "k-3");
    static final List<String> ALL = List.of("k-1", "k-2", "k-3", "plain");

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @Inject
    MeterRegistry registry;

    private final List<Long> jobs = new ArrayList<>();

    /** Binds refused so far, as colocate_admission_seconds_count{verb="bind",outcome="refused"} counts them. */
    private long refusedBinds() {
        var timer = registry.find("colocate.admission").tags("verb", "bind", "outcome", "refused").timer();
        return timer == null ? 0 : timer.count();
    }

    /** Pods refused for a Slurm race or no fit, as colocate_admission_refused_total counts them. */
    private double refusals() {
        return registry.find("colocate.admission.refused").counters().stream()
                .filter(c -> List.of("slurm_race", "no_fit").contains(c.getId().getTag("reason")))
                .mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
    }

    @BeforeEach
    void nodes() {
        SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        if (client.nodes().withName("k-1").get() == null) {
            Crds.apply(client);
            for (int i = 1; i <= 3; i++) {
                client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                        .create();
            }
            client.nodes().resource(aNode("plain").allocatable("8", "32000Mi").obj()).create();
        }
        await().atMost(WAIT).until(() -> SHARED.stream().allMatch(n -> {
            GenericNode gn = client.resources(GenericNode.class).withName(n).get();
            return gn != null && gn.getStatus() != null
                    && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY);
        }));
    }

    private Pod pending(String name, String cpu, String memory) {
        Pod pod = client.resource(aPod(name).requesting(cpu, memory).obj()).create();
        if (pod.getMetadata().getUid() == null) {
            pod.getMetadata().setUid(java.util.UUID.randomUUID().toString());
            pod = client.resource(pod).update();
        }
        return pod;
    }

    private static Map<String, Object> args(Pod pod, List<String> nodes) {
        return Map.of("Pod", asMap(pod), "NodeNames", nodes);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Pod pod) {
        return Serialization.jsonMapper().convertValue(pod, Map.class);
    }

    private Map<String, Object> filter(Pod pod, List<String> nodes) {
        return RestAssured.given().contentType(ContentType.JSON).body(args(pod, nodes)).post("/scheduler/filter")
                .then().statusCode(200).extract().jsonPath().getMap("$");
    }

    private String bind(Pod pod, String node) {
        Map<String, Object> body = Map.of("PodName", pod.getMetadata().getName(), "PodNamespace", "default",
                "PodUID", pod.getMetadata().getUid(), "Node", node);
        String error = RestAssured.given().contentType(ContentType.JSON).body(body).post("/scheduler/bind")
                .then().statusCode(200).extract().jsonPath().getString("Error");
        if (error == null) {
            SchedulerStandIn.bindLikeTheApiServer(client, pod);
        }
        return error;
    }

    /** K + S ≤ C on every shared node, from a fresh read of Slurm and the pods bound. */
    private void invariantHolds() {
        NodeInvariant.holds(client, slurm, 3);
    }

    private long sbatch(String node, int cpus) {
        String out = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3)).run("sbatch", "--parsable",
                "-o", "/dev/null", "-w", node, "--cpus-per-task=" + cpus, "--mem=" + cpus * 1000,
                "--gres=k8scpu:" + cpus + ",k8smemory:" + cpus * 1000, "--wrap", "sleep 600");
        long id = Long.parseLong(out.strip().split(";")[0]);
        jobs.add(id);
        return id;
    }

    @Test
    @Order(1)
    void malformedRequestsGet400AndChangeNothing() {
        String before = client.resources(GenericNode.class).withName("k-1").get().getMetadata().getResourceVersion();
        RestAssured.given().contentType(ContentType.JSON).body("{not json").post("/scheduler/filter")
                .then().statusCode(400);
        RestAssured.given().contentType(ContentType.JSON).body("{\"NodeNames\":[\"k-1\"]}").post("/scheduler/filter")
                .then().statusCode(400).body(org.hamcrest.Matchers.containsString("Pod"));
        RestAssured.given().contentType(ContentType.JSON).body("{\"PodName\":\"x\"}").post("/scheduler/bind")
                .then().statusCode(400).body(org.hamcrest.Matchers.containsString("Node"));
        assertThat(client.resources(GenericNode.class).withName("k-1").get().getMetadata().getResourceVersion())
                .isEqualTo(before);
    }

    @Test
    @Order(2)
    void aStreamOfPodsAndSlurmJobsNeverOvercommitsANode() {
        int bound = 0;
        for (int p = 0; p < 24; p++) {
            if (p % 4 == 0) {
                try {
                    sbatch("node" + (1 + ThreadLocalRandom.current().nextInt(3)), 2);
                } catch (IllegalStateException e) {
                    // Slurm refuses a job that no longer fits the counts Kubernetes left it: that is the point
                    assertThat(e.getMessage()).contains("Requested node configuration is not available");
                }
            }
            Pod pod = pending("s" + p, "1500m", "3Gi");
            Map<String, Object> result = filter(pod, ALL);
            @SuppressWarnings("unchecked")
            List<String> passing = (List<String>) result.get("NodeNames");
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
        // the shared nodes were filled as far as the invariant allows: none has room for one more such pod (a
        // colocate that refused too much would leave room, and send every pod to the plain node)
        NodeInvariant.free(client, slurm, 3).forEach((node, left) -> assertThat(left.milliCpu() < 1500
                || left.mb() < 3 * 1024).as("%s still has room for a pod: %s", node, left).isTrue());
        for (long job : jobs) {
            slurm.cancel(job).await().atMost(WAIT);
        }
        jobs.clear();
    }

    @Test
    @Order(3)
    void aSlurmJobThatStartsBetweenFilterAndBindMakesTheBindFailCleanly() {
        client.pods().inNamespace("default").delete();
        // a reservation the sync had not yet dropped when its pod was seen bound counts again once the pod is gone,
        // until it expires (60 s, then the next resync): Slurm gets less for that long, never more (see the note)
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> assertThat(slurm.node("node1").await().atMost(WAIT).gres())
                .containsEntry("k8scpu", 8L));
        Pod pod = pending("late", "4", "4Gi");
        @SuppressWarnings("unchecked")
        List<String> passing = (List<String>) filter(pod, List.of("k-1")).get("NodeNames");
        assertThat(passing).containsExactly("k-1");

        long job = sbatch("node1", 6);
        await().atMost(WAIT).until(() -> slurm.jobs().await().atMost(WAIT).stream()
                .anyMatch(j -> j.id() == job && j.isRunning()));

        // refused by the re-read after the reserve, or by the pre-check if a Slurm poll came first: cleanly either way
        long refusedBefore = refusedBinds();
        double refusalsBefore = refusals();
        String error = bind(pod, "k-1");
        assertThat(error).containsAnyOf("Slurm took k-1 meanwhile", "k-1: Slurm holds 6 CPU").contains("pod needs 4");
        assertThat(client.pods().inNamespace("default").withName("late").get().getSpec().getNodeName()).isNull();
        assertThat(client.bindings().inNamespace("default").withName("late").get()).isNull();
        // the share is back to what Kubernetes leaves free, and nothing is reserved
        assertThat(slurm.node("node1").await().atMost(WAIT).gres()).containsEntry("k8scpu", 8L);
        assertThat(client.resources(GenericNode.class).withName("k-1").get().getStatus().getReservations()).isEmpty();
        invariantHolds();
        assertThat(refusals()).as("colocate_admission_refused_total{reason=slurm_race|no_fit}")
                .isEqualTo(refusalsBefore + 1);
        assertThat(refusedBinds()).isEqualTo(refusedBefore + 1);
        slurm.cancel(job).await().atMost(WAIT);
        jobs.clear();
    }

    @Test
    @Order(4)
    void aReservationWhosePodNeverShowsUpBoundIsReleased() {
        Pod pod = pending("ghost", "3", "1Gi");
        // a reservation as a copilot that restarted before the Binding would have left it, expiring soon
        GenericNode gn = client.resources(GenericNode.class).withName("k-2").get();
        dev.colocate.api.Reservation r = new dev.colocate.api.Reservation();
        r.setNamespace("default");
        r.setPodName("ghost");
        r.setPodUid(pod.getMetadata().getUid());
        r.setRequests(new java.util.TreeMap<>(Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("3"),
                "memory", new io.fabric8.kubernetes.api.model.Quantity("1Gi"))));
        r.setExpiresAt(java.time.Instant.now().plusSeconds(8).toString());
        GenericNode copy = Serialization.clone(gn);
        copy.getStatus().setReservations(List.of(r));
        client.resources(GenericNode.class).resource(copy).updateStatus();

        // it counts while it lives: Slurm is held to 8 - 3 CPUs ...
        await().atMost(WAIT).untilAsserted(() -> assertThat(slurm.node("node2").await().atMost(WAIT).gres())
                .containsEntry("k8scpu", 5L));
        // ... and once it expires Slurm gets them back and the GenericNode shows no reservation
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(slurm.node("node2").await().atMost(WAIT).gres()).containsEntry("k8scpu", 8L);
            assertThat(client.resources(GenericNode.class).withName("k-2").get().getStatus().getReservations())
                    .isEmpty();
        });
    }

    @Test
    @Order(5)
    void withSlurmUnreachableFilterMarksSharedNodesUnresolvableAndBindRefuses() {
        SlurmHarness harness = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        Pod pod = pending("blind", "1", "1Gi");
        harness.stop("slurmrestd");
        try {
            await().atMost(WAIT).untilAsserted(() -> assertThat(Conditions.isTrue(client.resources(GenericNode.class)
                    .withName("k-3").get().getStatus().getConditions(), GenericNodeStatuses.SLURM_REACHABLE))
                    .isFalse());
            Map<String, Object> result = filter(pod, ALL);
            assertThat(result.get("NodeNames")).isEqualTo(List.of("plain"));
            @SuppressWarnings("unchecked")
            Map<String, String> unresolvable = (Map<String, String>) result.get("FailedAndUnresolvableNodes");
            assertThat(unresolvable).containsOnlyKeys("k-1", "k-2", "k-3");
            assertThat(unresolvable.get("k-3")).startsWith("Slurm: ");
            assertThat(bind(pod, "k-3")).startsWith("Slurm: ");
            assertThat(client.pods().inNamespace("default").withName("blind").get().getSpec().getNodeName()).isNull();
        } finally {
            harness.up();
        }
    }
}
