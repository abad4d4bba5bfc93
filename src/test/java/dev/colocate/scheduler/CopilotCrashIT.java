package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.GenericNode;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.GenericNodes;
import dev.colocate.testing.OvercommitSampler;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.Settled;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The packaged copilot (its own JVM, hold mode, real Slurm 22.05) killed with SIGKILL in the middle of a bind, and
 * the API server restarted under it. The API server is the stand-alone mock, made to leave one request unanswered
 * (so that the kill lands exactly between two steps of the bind) or to drop its watches and answer 410 Gone. After
 * each, a new copilot recovers within 30 s: no hold without a pod, no reservation left, no pod bound that was not
 * admitted, and the pod kube-scheduler retries binds once. (A {@code @QuarkusTest} only so that Quarkus stops any
 * application an earlier class left running, as in {@link CopilotRestartIT}.)
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class CopilotCrashIT {

    static final Duration RECOVERY = Duration.ofSeconds(30);
    static final Duration WAIT = Duration.ofSeconds(90);
    static final List<OvercommitSampler.Node> SHARED = List.of(new OvercommitSampler.Node("k-1", "node1", 8000, 32000));
    static final Path LOG = Path.of("target", "copilot-crash-it.log");

    private SlurmHarness slurm;
    private StandaloneApiServer api;
    private KubernetesClient client;
    private Map<String, String> config;

    @BeforeEach
    void oneSharedNode() {
        slurm = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        api = new StandaloneApiServer(0);
        client = api.client();
        client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "32000Mi").obj()).create();
        config = Map.of(
                // fabric8's own setting: quarkus.kubernetes-client.api-server-url is fixed at build time
                "kubernetes.master", api.url(),
                "colocate.operator.enabled", "false",
                "colocate.slurm.rest-url", slurm.restUrl(),
                "colocate.slurm.jwt.key-file", slurm.jwtKey().toString(),
                "colocate.slurm.scontrol.slurm-conf", slurm.slurmConf().toString(),
                "colocate.scheduler.reservation-timeout", "30s",
                "colocate.copilot.resync-interval", "5s",
                "colocate.copilot.hold-compact-after", "3s");
    }

    @AfterEach
    void noHoldOutlivesTheTest() {
        api.close();
        // the last copilot is gone: its holds would outlive this test, so they go with it
        slurm.run("scancel", "-p", "holds");
    }

    private Pod pending(String name, String cpu, String memory) {
        Pod pod = aPod(name).requesting(cpu, memory).obj();
        pod.getMetadata().setUid(UUID.randomUUID().toString());
        return client.resource(pod).create();
    }

    /** CPUs Slurm holds for k-1 (granted), read with squeue. */
    private long heldCpus() {
        return slurm.run("squeue", "-h", "-a", "-p", "holds", "-t", "R", "-o", "%k %C").lines()
                .filter(l -> l.startsWith("colocate:k-1 ")).mapToLong(l -> Long.parseLong(l.split(" ")[1])).sum();
    }

    private void settles(String after) {
        await().atMost(RECOVERY).untilAsserted(() -> assertThat(Settled.problems(slurm, client, SHARED, "holds"))
                .as(after).isEmpty());
    }

    /**
     * Starts a copilot, binds the pod through it with {@code stalled} left unanswered, and kills the copilot once the
     * stalled request arrived: kube-scheduler hears no answer.
     */
    private void killedWhileBinding(Pod pod, Predicate<RecordedRequest> stalled) throws Exception {
        try (ColocateProcess first = ColocateProcess.start(config, LOG).awaitReady(WAIT)) {
            GenericNodes.awaitReady(client, WAIT, "k-1");
            bindKilled(first, pod, stalled);
        }
    }

    private void bindKilled(ColocateProcess first, Pod pod, Predicate<RecordedRequest> stalled) throws Exception {
        try (StandaloneApiServer.Stall stall = api.stall(stalled)) {
            CompletableFuture<String> bind = CompletableFuture.supplyAsync(
                    () -> new SchedulerStandIn(first.uri()).bind(pod, "k-1"));
            await().atMost(WAIT).until(() -> stall.hit() || bind.isDone());
            assertThat(stall.hit()).as("the bind reached the stalled request; it answered %s",
                    bind.isDone() ? bind.handle((answer, e) -> e != null ? e : answer).join() : "nothing").isTrue();
            assertThat(heldCpus()).as("Slurm holds the pod's share before the kill").isEqualTo(2);
            first.kill();
            assertThat(bind).failsWithin(WAIT);
        }
    }

    @Test
    void killedBetweenTheSlurmHoldAndTheReservationItsSuccessorReleasesTheHold() throws Exception {
        Pod pod = pending("web-0", "2", "1Gi");
        killedWhileBinding(pod, r -> "PATCH".equals(r.getMethod()) && r.getPath().endsWith("/genericnodes/k-1/status")
                && StandaloneApiServer.body(r).contains("/status/reservations"));
        assertThat(client.bindings().inNamespace("default").withName("web-0").get()).isNull();

        try (ColocateProcess second = ColocateProcess.start(config, LOG).awaitReady(WAIT)) {
            // nothing is bound, so nothing may stay held
            settles("a copilot killed between the Slurm hold and the reservation");
            assertThat(new SchedulerStandIn(second.uri()).bind(pod, "k-1")).isNull();
            SchedulerStandIn.bindLikeTheApiServer(client, pod);
            settles("the retried bind");
            assertThat(heldCpus()).isEqualTo(2);
        }
    }

    @Test
    void killedBetweenTheReservationAndTheBindingTheRetriedBindHoldsOnce() throws Exception {
        Pod retried = pending("web-0", "2", "1Gi");
        killedWhileBinding(retried, r -> "POST".equals(r.getMethod()) && r.getPath().contains("/bindings"));
        GenericNode gn = client.resources(GenericNode.class).withName("k-1").get();
        assertThat(gn.getStatus().getReservations()).singleElement()
                .satisfies(r -> assertThat(r.getPodName()).isEqualTo("web-0"));

        try (ColocateProcess second = ColocateProcess.start(config, LOG).awaitReady(WAIT)) {
            // kube-scheduler tries the pod again: it binds, and Slurm holds its share once, not twice
            assertThat(new SchedulerStandIn(second.uri()).bind(retried, "k-1")).isNull();
            SchedulerStandIn.bindLikeTheApiServer(client, retried);
            settles("the bind retried after a copilot killed between the reservation and the Binding");
            assertThat(heldCpus()).isEqualTo(2);
        }
    }

    @Test
    void killedBetweenTheReservationAndTheBindingAPodNeverRetriedIsReleasedWhenItsReservationExpires()
            throws Exception {
        Pod abandoned = pending("web-0", "2", "1Gi");
        killedWhileBinding(abandoned, r -> "POST".equals(r.getMethod()) && r.getPath().contains("/bindings"));
        try (ColocateProcess second = ColocateProcess.start(config, LOG).awaitReady(WAIT)) {
            // the reservation (30 s here: longer than the 15 s the new copilot waits for the killed one's Lease) keeps
            // the share until it expires; then Slurm has it back
            assertThat(heldCpus()).isEqualTo(2);
            settles("a reservation whose pod never bound");
            assertThat(client.bindings().inNamespace("default").withName("web-0").get()).isNull();
        }
    }

    @Test
    void anApiServerRestartThatDropsTheWatchesIsFollowedByALookAtEverything() {
        try (ColocateProcess copilot = ColocateProcess.start(config, LOG).awaitReady(WAIT)) {
            GenericNodes.awaitReady(client, WAIT, "k-1");
            SchedulerStandIn scheduler = new SchedulerStandIn(copilot.uri());
            Pod stays = pending("stays", "1", "1Gi");
            Pod goes = pending("goes", "2", "1Gi");
            for (Pod pod : List.of(stays, goes)) {
                assertThat(scheduler.bind(pod, "k-1")).isNull();
                SchedulerStandIn.bindLikeTheApiServer(client, pod);
            }
            settles("two pods bound");

            api.restart();
            // while the copilot's watches are down (and every resumed watch gets 410 Gone), a pod goes and another
            // arrives on the node past colocate: only listing everything again tells the copilot
            client.pods().inNamespace("default").withName("goes").delete();
            client.resource(aPod("past-colocate").on("k-1").requesting("3", "2Gi").obj()).create();
            settles("an API server restart");
            assertThat(heldCpus()).isEqualTo(4);

            api.forgetNoMore();
            Pod after = pending("after", "1", "512Mi");
            assertThat(scheduler.bind(after, "k-1")).isNull();
            SchedulerStandIn.bindLikeTheApiServer(client, after);
            settles("a bind after the API server restart");
            assertThat(heldCpus()).isEqualTo(5);
        }
    }
}
