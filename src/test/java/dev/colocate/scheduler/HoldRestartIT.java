package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.GenericNode;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The packaged copilot in hold mode (its own JVM, a stand-alone CRUD mock API, real Slurm 22.05) is killed with two
 * pods admitted: Slurm keeps holding their share while no copilot runs, and the next copilot adopts the holds it
 * finds rather than grant them again. (A {@code @QuarkusTest} only so that Quarkus stops any application an earlier
 * class left running; its own runs neither role, as in {@link CopilotRestartIT}.)
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class HoldRestartIT {

    static final Duration WAIT = Duration.ofSeconds(90);

    /** Every copilot a test starts, stopped after it whatever happened. */
    private final java.util.List<ColocateProcess> started = new java.util.ArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void noCopilotOutlivesTheTest() {
        started.forEach(ColocateProcess::close);
    }

    /** The ids of node-k-1's holds in Slurm, granted or waiting, read with squeue rather than through colocate. */
    private static List<Long> holds(SlurmHarness slurm) {
        return Arrays.stream(slurm.run("squeue", "-a", "-h", "-p", "holds", "-o", "%i %k").split("\n"))
                .filter(l -> l.endsWith(" colocate:k-1")).map(l -> Long.parseLong(l.split(" ")[0])).sorted()
                .toList();
    }

    private static Pod pending(KubernetesClient client, String name, String cpu, String memory) {
        Pod pod = aPod(name).requesting(cpu, memory).obj();
        pod.getMetadata().setUid(UUID.randomUUID().toString());
        return client.resource(pod).create();
    }

    private static List<Long> shownHolds(KubernetesClient client) {
        GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
        return gn == null || gn.getStatus() == null || gn.getStatus().getHolds() == null ? List.of()
                : gn.getStatus().getHolds().getJobIds().stream().sorted().toList();
    }

    @Test
    void aNewCopilotAdoptsTheHoldsOfTheOneThatCrashed() {
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
                    "colocate.copilot.resync-interval", "3s");
            Path log = Path.of("target", "hold-restart-it.log");
            long job = -1;
            try {
                ColocateProcess first = ColocateProcess.start(config, log);
                // killed by the test; closed (a no-op then) if an assertion fails before, so that it never outlives the run
                started.add(first);
                first.awaitReady(WAIT);
                GenericNodes.awaitReady(client, WAIT, "k-1");
                SchedulerStandIn scheduler = new SchedulerStandIn(first.uri());
                Pod bindsLater = pending(client, "binds-later", "3", "3Gi");
                Pod neverBinds = pending(client, "never-binds", "2", "2Gi");
                assertThat(scheduler.bind(bindsLater, "k-1")).isNull();
                assertThat(scheduler.bind(neverBinds, "k-1")).isNull();
                List<Long> before = holds(slurm);
                assertThat(before).isNotEmpty();

                first.kill();
                // no copilot runs: Slurm still holds 5 CPUs for Kubernetes, so a 4-CPU job has to wait
                job = Long.parseLong(slurm.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1",
                        "--cpus-per-task=4", "--mem=4000", "--wrap", "sleep 600").strip().split(";")[0]);
                long waiting = job;
                await().atMost(WAIT).untilAsserted(() -> assertThat(slurm.run("squeue", "-h", "-j",
                        String.valueOf(waiting), "-o", "%T %r").strip()).isEqualTo("PENDING Resources"));
                SchedulerStandIn.bindLikeTheApiServer(client, bindsLater);

                try (ColocateProcess second = ColocateProcess.start(config, log).awaitReady(WAIT)) {
                    // it shows the holds it found, and holds them through several resyncs without a new grant
                    await().atMost(WAIT).untilAsserted(() -> assertThat(shownHolds(client)).isEqualTo(before));
                    await().during(Duration.ofSeconds(8)).atMost(WAIT)
                            .untilAsserted(() -> assertThat(holds(slurm)).isEqualTo(before));
                    // the pod that never binds: its reservation expires, its share goes, and the job starts
                    await().atMost(WAIT).untilAsserted(() -> assertThat(slurm.run("squeue", "-h", "-j",
                            String.valueOf(waiting), "-o", "%T").strip()).isEqualTo("RUNNING"));
                }
            } finally {
                if (job > 0) {
                    slurm.run("scancel", String.valueOf(job));
                }
                // the last copilot is gone: its holds would outlive this test, so they go with it
                slurm.run("scancel", "-p", "holds");
            }
        }
    }
}
