package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.testing.Crds;
import dev.colocate.testing.OvercommitSampler;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.Settled;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.Pod;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Slurm fails under a bind storm on three shared nodes, each running a Slurm job: slurmctld killed with SIGKILL,
 * slurmrestd down for a minute, slurmctld hung. During the fault no pod is admitted that Slurm did not hold for, and
 * every bind still answers; within 30 s of the end of it the storm binds again, and once it stops the nodes settle
 * ({@link Settled}: Slurm holds exactly what the bound pods need, no reservation, nothing drained), the jobs still run,
 * and the sampler outside colocate saw no overcommit throughout, while Slurm jobs waited to take any CPU a lost or
 * missing hold would leave free. Holds are compacted after 3 quiet seconds here (60 s
 * by default), so that "settled" can be exact.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "3"), @ResourceArg(name = "resyncInterval", value = "5s"),
            @ResourceArg(name = "compactAfter", value = "3s")})
class SlurmFaultsIT {

    static final Duration RECOVERY = Duration.ofSeconds(30);
    static final Duration WAIT = Duration.ofSeconds(60);
    static final List<String> NODES = List.of("k-1", "k-2", "k-3");

    @Inject
    KubernetesClient client;

    private SlurmHarness harness;
    private final List<OvercommitSampler.Node> shared = new ArrayList<>();
    private final List<Long> jobs = new ArrayList<>();
    private final List<Long> waiting = new ArrayList<>();
    private OvercommitSampler sampler;
    private java.time.Instant running;

    @BeforeEach
    void threeSharedNodesEachRunningASlurmJob() {
        harness = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(3));
        Crds.apply(client);
        for (int i = 1; i <= 3; i++) {
            if (client.nodes().withName("k-" + i).get() == null) {
                client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                        .create();
            }
            shared.add(new OvercommitSampler.Node("k-" + i, "node" + i, 8000, 32000));
            jobs.add(Long.parseLong(harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node" + i,
                    "--cpus-per-task=2", "--mem=2000", "--wrap", "sleep 900").strip().split(";")[0]));
        }
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(jobStates()).containsOnly("RUNNING");
            for (String node : NODES) {
                GenericNode gn = client.resources(GenericNode.class).withName(node).get();
                assertThat(gn != null && gn.getStatus() != null
                        && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY)).isTrue();
            }
        });
        running = java.time.Instant.now();
        sampler = new OvercommitSampler(harness, client, shared, "holds");
    }

    @AfterEach
    void nothingIsLeftBehind() {
        if (sampler != null) {
            sampler.close();
        }
        jobs.forEach(id -> harness.run("scancel", String.valueOf(id)));
        waiting.forEach(id -> harness.run("scancel", String.valueOf(id)));
        client.pods().inAnyNamespace().delete();
        await().atMost(WAIT).untilAsserted(() -> assertThat(Settled.problems(harness, client, shared, "holds"))
                .isEmpty());
    }

    private static int cpus(Pod pod) {
        return pod.getSpec().getContainers().stream().mapToInt(c -> Integer.parseInt(
                c.getResources().getRequests().get("cpu").getAmount())).sum();
    }

    /** The state of each job of this test, as squeue shows it (a lost job shows nothing). */
    private List<String> jobStates() {
        return jobs.stream().map(id -> harness.run("squeue", "-h", "-j", String.valueOf(id), "-o", "%T").strip())
                .toList();
    }

    /**
     * Slurm jobs that wait for any CPU of each node and start the moment one is free (Slurm starts pending jobs on
     * each job's end): a hold lost in the fault would have its room taken, which the sampler sees. They end after
     * 10 s, so that the storm has room again.
     */
    private void jobsWaitingForFreedCpus() {
        for (int i = 1; i <= 3; i++) {
            waiting.add(Long.parseLong(harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node" + i,
                    "-a", "0-3", "--cpus-per-task=1", "--mem=500", "--wrap", "sleep 10").strip().split(";")[0]));
        }
    }

    private BindStorm storm() {
        return new BindStorm(client, new SchedulerStandIn(URI.create(RestAssured.baseURI + ":" + RestAssured.port)),
                NODES, 4, 20261205L);
    }

    /**
     * After the fault: the storm binds again within 30 s and stops, and the Slurm jobs still run. Then part of the pods
     * end and so do the jobs, waiting ones too: a hold shrinks only by a smaller one granted before it is cancelled,
     * so a node the storm filled keeps its holds until Slurm has room, and the jobs' end is that room. Everything
     * settles within 30 s.
     */
    private void recovers(BindStorm storm, String fault) {
        int before = storm.bound();
        await().atMost(RECOVERY).until(() -> storm.bound() > before);
        storm.close();
        String report = fault + "; storm: " + storm;
        assertThat(jobStates()).as("the Slurm jobs after " + report).containsOnly("RUNNING");
        java.util.stream.Stream.concat(jobs.stream(), waiting.stream())
                .forEach(id -> harness.run("scancel", String.valueOf(id)));
        jobs.clear();
        waiting.clear();
        for (String node : NODES) {
            List<Pod> pods = new ArrayList<>(client.pods().inNamespace("default").list().getItems().stream()
                    .filter(p -> node.equals(p.getSpec().getNodeName())).toList());
            while (pods.stream().mapToInt(p -> cpus(p)).sum() > 2) {
                client.resource(pods.remove(0)).delete();
            }
        }
        await().atMost(RECOVERY).untilAsserted(() -> assertThat(Settled.problems(harness, client, shared, "holds"))
                .as(report).isEmpty());
        assertThat(storm.errors()).as("binds that did not answer; " + report).isEmpty();
        assertThat(storm.bindingsOfRefusedPods()).as(report).isEmpty();
        assertThat(sampler.violations()).as(report).isEmpty();
        // a sampler that missed the run would pass any test: at least one sample a second, every 100 ms asked for
        long seconds = Duration.between(running, java.time.Instant.now()).toSeconds();
        assertThat(sampler.samples()).as("samples in %d s; %s", seconds, sampler.summary())
                .isGreaterThanOrEqualTo((int) seconds);
        System.out.println("SlurmFaultsIT " + report + "; sampler: " + sampler.summary());
    }

    @Test
    void slurmctldKilledDuringABindStormLosesNoJobAndLeaksNoHold() {
        try (BindStorm storm = storm()) {
            await().atMost(WAIT).until(() -> storm.bound() >= 5);
            // a crash loses what slurmctld had not saved yet, jobs included: that is Slurm's, and here the jobs were
            // saved, as on any cluster that ran for more than a few seconds (SlurmctldCrashIT covers lost holds)
            await().atMost(WAIT).until(() -> harness.jobStateSavedAfter(running));
            jobsWaitingForFreedCpus();
            harness.killSlurmctld(() -> {
                int refused = storm.refused();
                await().atMost(WAIT).until(() -> storm.refused() >= refused + 5);
            });
            recovers(storm, "slurmctld killed with SIGKILL");
        }
    }

    /**
     * Slurm 22.05 grants holds with salloc, which talks to slurmctld, not slurmrestd: binds may go on through the
     * outage, each one checked by slurmctld itself, while the GenericNodes say that slurmrestd cannot be reached.
     */
    @Test
    void slurmrestdDownForAMinuteOvercommitsNothingAndShowsItThenRecovers() {
        try (BindStorm storm = storm()) {
            await().atMost(WAIT).until(() -> storm.bound() >= 5);
            jobsWaitingForFreedCpus();
            harness.stop("slurmrestd");
            long stopped = System.nanoTime();
            try {
                await().atMost(WAIT).untilAsserted(() -> assertThat(NODES).allSatisfy(node -> assertThat(
                        Conditions.isTrue(client.resources(GenericNode.class).withName(node).get().getStatus()
                                .getConditions(), GenericNodeStatuses.SLURM_REACHABLE)).as(node).isFalse()));
                // the storm goes on for a minute with slurmrestd down
                await().during(Duration.ofMinutes(1)).atMost(Duration.ofMinutes(2))
                        .until(() -> storm.errors().isEmpty() && sampler.violations().isEmpty());
                System.out.println("SlurmFaultsIT: binds that started while slurmrestd was down and went through: "
                        + storm.boundStartedAfter(stopped));
            } finally {
                harness.up();
            }
            recovers(storm, "slurmrestd down for a minute");
        }
    }

    @Test
    void aHungSlurmctldGetsEveryBindAnAnswerAndLeaksNoHoldWhenItWakes() {
        try (BindStorm storm = storm()) {
            await().atMost(WAIT).until(() -> storm.bound() >= 5);
            jobsWaitingForFreedCpus();
            harness.freeze("slurmctld", true);
            try {
                // every bind gets its answer (a refusal) while Slurm answers nothing: none of them is left hanging
                int refused = storm.refused();
                await().atMost(WAIT).until(() -> storm.refused() >= refused + 4);
            } finally {
                harness.freeze("slurmctld", false);
            }
            recovers(storm, "slurmctld hung");
        }
    }
}
