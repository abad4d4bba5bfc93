package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.GenericNode;
import dev.colocate.api.Reservation;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The copilot crashes (SIGKILL) with two admitted pods not yet seen bound, and a new one starts: the packaged
 * application in its own JVM, twice, against real Slurm and a stand-alone mock API. The reservations live on the
 * GenericNode, so nothing they hold goes back to Slurm while no copilot runs or when the next one starts; only a
 * reservation whose pod never binds is released, when it expires. (Slurm 22.05 refuses at submission a job whose
 * GRES exceed the node's count, rather than queueing it.)
 *
 * <p>It is a {@code @QuarkusTest} only so that Quarkus stops any application an earlier test class left running,
 * which would write Slurm counts too; the application it starts itself runs neither role and no Slurm is there.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class CopilotRestartIT {

    static final Duration WAIT = Duration.ofSeconds(90);

    /** Every copilot a test starts, stopped after it whatever happened. */
    private final java.util.List<ColocateProcess> started = new java.util.ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void noCopilotOutlivesTheTest() {
        started.forEach(ColocateProcess::close);
    }
    static final Pattern K8SCPU = Pattern.compile("k8scpu:(\\d+)");

    public static class Bystander implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.operator.enabled", "false", "colocate.copilot.enabled", "false");
        }
    }

    /** The k8scpu count slurmctld holds for the node, read with scontrol rather than through colocate. */
    private static long k8scpu(SlurmHarness slurm, String node) {
        Matcher count = K8SCPU.matcher(slurm.run("scontrol", "-o", "show", "node", node));
        assertThat(count.find()).as("Gres of " + node).isTrue();
        return Long.parseLong(count.group(1));
    }

    private static List<String> reservedPods(KubernetesClient client) {
        GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
        return gn == null || gn.getStatus() == null ? List.of()
                : gn.getStatus().getReservations().stream().map(Reservation::getPodName).sorted().toList();
    }

    private static Pod pending(KubernetesClient client, String name, String cpu, String memory) {
        Pod pod = aPod(name).requesting(cpu, memory).obj();
        pod.getMetadata().setUid(UUID.randomUUID().toString());
        return client.resource(pod).create();
    }

    private static void admit(SchedulerStandIn scheduler, Pod pod) {
        assertThat(scheduler.filter(pod, List.of("k-1")).nodeNames()).as("filter " + pod.getMetadata().getName())
                .containsExactly("k-1");
        assertThat(scheduler.bind(pod, "k-1")).as("bind " + pod.getMetadata().getName()).isNull();
    }

    private static long sbatch(SlurmHarness slurm, int cpus) {
        return Long.parseLong(slurm.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1",
                "--cpus-per-task=" + cpus, "--mem=" + cpus * 1000, "--gres=k8scpu:" + cpus + ",k8smemory:"
                        + cpus * 1000, "--wrap", "sleep 600").strip().split(";")[0]);
    }

    private static String jobState(SlurmHarness slurm, long job) {
        return slurm.run("squeue", "-h", "-j", String.valueOf(job), "-o", "%T %r").strip();
    }

    @Test
    void reservationsSurviveACrashAndOnlyThoseWhosePodNeverBindsAreReleased() {
        SlurmHarness slurm = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        try (StandaloneApiServer api = new StandaloneApiServer(0)) {
            KubernetesClient client = api.client();
            client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "32000Mi").obj()).create();
            Map<String, String> config = Map.of(
                    // fabric8's own setting: quarkus.kubernetes-client.api-server-url is fixed at build time
                    "kubernetes.master", api.url(),
                    "colocate.operator.enabled", "false",
                    "colocate.slurm.rest-url", slurm.restUrl(),
                    "colocate.slurm.jwt.key-file", slurm.jwtKey().toString(),
                    "colocate.slurm.scontrol.slurm-conf", slurm.slurmConf().toString(),
                    "colocate.scheduler.reservation-timeout", "30s",
                    // this test reads Slurm's share as the k8scpu count; hold mode has its own tests (HoldModeIT)
                    "colocate.copilot.share-mode", "gres");
            Path log = Path.of("target", "copilot-restart-it.log");

            ColocateProcess first = ColocateProcess.start(config, log);
            // killed by the test; closed (a no-op then) if an assertion fails before, so that it never outlives the run
            started.add(first);
            first.awaitReady(WAIT);
            GenericNodes.awaitReady(client, WAIT, "k-1");
            await().atMost(WAIT).until(() -> k8scpu(slurm, "node1") == 8);
            SchedulerStandIn scheduler = new SchedulerStandIn(first.uri());
            Pod bindsLater = pending(client, "binds-later", "3", "3Gi");
            Pod neverBinds = pending(client, "never-binds", "2", "2Gi");
            admit(scheduler, bindsLater);
            admit(scheduler, neverBinds);
            assertThat(k8scpu(slurm, "node1")).as("Slurm's share with both admitted").isEqualTo(3);
            assertThat(reservedPods(client)).containsExactly("binds-later", "never-binds");

            first.kill();
            // the crash leaves Slurm held to 3 CPUs: a job that needs 4 is refused although no copilot runs
            assertThat(k8scpu(slurm, "node1")).isEqualTo(3);
            assertThatThrownBy(() -> sbatch(slurm, 4)).hasMessageContaining("Requested node configuration");
            // the API server acts on the Binding the first copilot created while none runs
            SchedulerStandIn.bindLikeTheApiServer(client, bindsLater);

            try (ColocateProcess second = ColocateProcess.start(config, log).awaitReady(WAIT)) {
                // the new copilot counts the bound pod and keeps the other one's reservation
                await().atMost(WAIT).untilAsserted(() -> assertThat(reservedPods(client))
                        .containsExactly("never-binds"));
                assertThat(k8scpu(slurm, "node1")).as("Slurm's share after the restart").isEqualTo(3);

                // the reservation expires: its 2 CPUs go back to Slurm, where a 4-CPU job now runs
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(reservedPods(client)).isEmpty();
                    assertThat(k8scpu(slurm, "node1")).isEqualTo(5);
                });
                long job = sbatch(slurm, 4);
                try {
                    await().atMost(WAIT).untilAsserted(() -> assertThat(jobState(slurm, job)).startsWith("RUNNING"));
                } finally {
                    slurm.run("scancel", String.valueOf(job));
                }
            }
        }
    }
}
