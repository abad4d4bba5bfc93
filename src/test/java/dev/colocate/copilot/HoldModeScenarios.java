package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.testing.KubeAdmin;
import dev.colocate.testing.SlurmHarness;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hold mode on real Slurm (8 CPUs, 32000 MB, the holds partition) and the real API server: Kubernetes' share is Slurm
 * allocations, the GRES counts never change, and no registration or restart drains the node. Run once per release
 * by {@link HoldModeIT} (22.05: salloc and sbatch), {@link HoldMode2411IT} and {@link HoldMode2605IT} (24.11 and
 * 26.05: job/allocate and job/submit).
 */
abstract class HoldModeScenarios {

    static final Duration WAIT = Duration.ofSeconds(45);
    static final String PARTITION = "holds";

    @KubeAdmin
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @Inject
    NodeSync sync;

    private final List<Long> jobs = new ArrayList<>();

    /** The cluster this class runs on. */
    abstract SlurmHarness.Shape shape();

    @AfterEach
    void cleanUp() {
        // as root through scancel: slurmctld 24.11 stops answering after a cancel by a user who does not own the job
        jobs.forEach(id -> SlurmHarness.ensure(shape()).run("scancel", String.valueOf(id)));
        client.pods().inAnyNamespace().withGracePeriod(0).delete();
        client.nodes().delete();
        // the node is no longer shared: its holds go
        await().atMost(WAIT).until(() -> holds().isEmpty());
    }

    private long sbatch(SlurmHarness harness, int cpus, long memoryMb) {
        String out = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1", "-t", "600",
                "--cpus-per-task=" + cpus, "--mem=" + memoryMb, "--wrap", "sleep 600");
        long id = Long.parseLong(out.strip().split(";")[0]);
        jobs.add(id);
        return id;
    }

    private SlurmJob job(long id) {
        return slurm.jobs().await().atMost(WAIT).stream().filter(j -> j.id() == id).findFirst().orElseThrow();
    }

    private List<SlurmHold> holds() {
        return slurm.holds(PARTITION).await().atMost(WAIT);
    }

    private GenericNode genericNode() {
        return client.resources(GenericNode.class).withName("node-a").get();
    }

    private String allocated() {
        GenericNode gn = genericNode();
        return gn == null || gn.getStatus() == null ? null
                : Serialization.asJson(gn.getStatus().getAllocatedResources());
    }

    private SlurmNode node1() {
        return slurm.node("node1").await().atMost(WAIT);
    }

    private static String row(String slurmCpu, String slurmMem, String k8sCpu, String k8sMem) {
        return "[{\"allocated\":{\"cpu\":\"" + slurmCpu + "\",\"memory\":\"" + slurmMem + "\"},\"type\":\"Slurm\"},"
                + "{\"allocated\":{\"cpu\":\"" + k8sCpu + "\",\"memory\":\"" + k8sMem + "\"},\"type\":\"Kubernetes\"}]";
    }

    /** The holds of node-a cover at least the CPUs and MB, and the node is neither drained nor invalid. */
    private void heldAndUndrained(long cpus, long memoryMb) {
        List<SlurmHold> holds = holds();
        assertThat(holds).allSatisfy(h -> {
            assertThat(h.kubernetesNode()).isEqualTo("node-a");
            assertThat(h.node()).isEqualTo("node1");
        });
        List<SlurmHold> granted = holds.stream().filter(SlurmHold::running).toList();
        assertThat(granted.stream().mapToLong(SlurmHold::cpus).sum()).isGreaterThanOrEqualTo(cpus);
        assertThat(granted.stream().mapToLong(SlurmHold::memoryMb).sum()).isGreaterThanOrEqualTo(memoryMb);
        SlurmNode n = node1();
        assertThat(n.state()).doesNotContain("DRAIN", "INVALID_REG", "DOWN");
        assertThat(n.gres()).as("hold mode changes no GRES count")
                .containsEntry("k8scpu", 8L).containsEntry("k8smemory", 32000L);
    }

    @Test
    void kubernetesShareIsHeldBySlurmAndSurvivesEveryRegistrationAndRestart() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        // as an earlier GRES-mode copilot left it: hold mode restores the counts (heldAndUndrained checks them)
        harness.run("scontrol", "update", "NodeName=node1", "Gres=k8scpu:5,k8smemory:20000");
        // as a copilot starting after such a run sees it: from its first poll
        await().atMost(WAIT).until(() -> sync.slurmView().nodes().get("node1") != null
                && sync.slurmView().nodes().get("node1").gres("k8scpu") == 5);
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        client.resource(aPod("agent").in("kube-system").on("node-a").requesting("735m", "345Mi").obj()).create();
        client.resource(aPod("web-0").on("node-a").requesting("1", "2048Mi").obj()).create();

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(allocated()).isEqualTo(row("0", "0", "1735m", "2393Mi"));
            heldAndUndrained(2, 2393);
            assertThat(Conditions.find(genericNode().getStatus().getConditions(), "Ready").getReason())
                    .isEqualTo("HeldBySlurm");
        });
        assertThat(harness.run("squeue", "-a", "-p", PARTITION, "-h", "-o", "%j %k %N"))
                .as("squeue shows what each hold is for").contains("colocate-hold colocate:node-a node1");

        long first = sbatch(harness, 3, 4000);
        await().atMost(WAIT).until(() -> job(first).isRunning());
        // a pod that reaches the node without the extender: the copilot grows the hold
        client.resource(aPod("web-1").on("node-a").requesting("1", "1Gi").obj()).create();
        List<Long> waiting = new ArrayList<>();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(allocated()).as("Slurm's row leaves out the holds")
                    .isEqualTo(row("3", "4000Mi", "2735m", "3417Mi"));
            heldAndUndrained(3, 3417);
            assertThat(genericNode().getStatus().getHolds().getNeededCpu().toString()).isEqualTo("3");
        });

        // an admin cancels a hold: the next resync holds the share again (before any Slurm job waits for the node,
        // which Slurm would start in the CPUs the cancel freed, as it may)
        long cancelled = holds().get(0).jobId();
        harness.run("scancel", String.valueOf(cancelled));
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(holds()).extracting(SlurmHold::jobId).doesNotContain(cancelled);
            heldAndUndrained(3, 3417);
        });

        long second = sbatch(harness, 3, 4000);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(job(second).isPending()).isTrue();
            assertThat(job(second).reason()).isEqualTo("Resources");
        });
        // quiet now: the holds are compacted to exactly what Kubernetes needs, in a few holds
        await().atMost(WAIT).untilAsserted(() -> {
            List<SlurmHold> granted = holds().stream().filter(SlurmHold::running).toList();
            assertThat(granted.stream().mapToLong(SlurmHold::cpus).sum()).isEqualTo(3);
            assertThat(granted.stream().mapToLong(SlurmHold::memoryMb).sum()).isEqualTo(3417);
            assertThat(granted).hasSizeLessThanOrEqualTo(HoldPlanner.MAX_HOLDS);
        });

        // every way slurmd registers again, and a slurmctld crash: the holds stay, nothing drains
        List<Consumer<SlurmHarness>> disturbances = List.of(
                h -> h.run("bash", "-c", h.reregisterCommand().replace("{node}", "node1")),
                h -> h.restartSlurmd("node1"),
                h -> h.run("scontrol", "reconfigure"),
                h -> sampled(h, () -> {
                    // slurmctld saves its job state a few seconds after a change, and a SIGKILL before that loses
                    // the jobs since: change one now and wait for the save, so the kill loses nothing of the test's
                    Instant before = Instant.now();
                    h.run("scontrol", "update", "JobId=" + second, "Comment=saved");
                    await().atMost(WAIT).until(() -> h.jobStateSavedAfter(before));
                    h.killSlurmctld();
                }));
        for (Consumer<SlurmHarness> disturb : disturbances) {
            disturb.accept(harness);
            await().atMost(WAIT).untilAsserted(() -> {
                heldAndUndrained(3, 3417);
                assertThat(job(first).isRunning()).isTrue();
                assertThat(job(second).isPending()).isTrue();
            });
        }


        // a pod deleted gives its share back within one sync, and the waiting job starts
        client.pods().inNamespace("default").withName("web-1").delete();
        await().atMost(WAIT).until(() -> job(second).isRunning());
        await().atMost(WAIT).untilAsserted(() -> heldAndUndrained(2, 2393));
    }

    /**
     * Runs the disturbance while sampling, every 50 ms, what Slurm has allocated on node1 and what its holds hold,
     * with squeue and scontrol as an operator would: Kubernetes holds 2735m there, so the granted holds must cover 3
     * CPUs at every instant Slurm answers, and Slurm never has more than the node's 8 CPUs allocated.
     */
    private static void sampled(SlurmHarness h, Runnable disturb) {
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger samples = new java.util.concurrent.atomic.AtomicInteger();
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                try {
                    String node = h.run("scontrol", "-o", "show", "node", "node1");
                    String held = h.run("squeue", "-a", "-h", "-p", PARTITION, "-t", "R", "-o", "%C");
                    long alloc = Long.parseLong(node.replaceAll("(?s).*CPUAlloc=(\\d+).*", "$1"));
                    long holds = held.lines().filter(l -> !l.isBlank()).mapToLong(l -> Long.parseLong(l.strip()))
                            .sum();
                    samples.incrementAndGet();
                    if (holds < 3 || alloc > 8) {
                        violations.add("holds " + holds + " CPU, allocated " + alloc + " of 8");
                    }
                } catch (RuntimeException e) {
                    // slurmctld is down for a moment: nothing to sample
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sampler.start();
        try {
            disturb.run();
            await().atMost(WAIT).until(() -> samples.get() >= 20);
        } finally {
            done.set(true);
        }
        try {
            sampler.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertThat(violations).as("samples taken while slurmctld restarted").isEmpty();
    }

    @Test
    void aSharedNodeTheHoldsPartitionLeavesOutMakesTheCopilotUnready() {
        SlurmHarness.ensure(shape());
        await().atMost(WAIT).untilAsserted(() -> io.restassured.RestAssured.given().get("/q/health/ready")
                .then().statusCode(200));
        client.nodes().resource(aNode("node-z").sharedWith("node7").allocatable("8", "32000Mi").tainted().obj())
                .create();
        await().atMost(WAIT).untilAsserted(() -> io.restassured.RestAssured.given().get("/q/health/ready")
                .then().statusCode(503)
                .body("checks.find { it.name == 'slurm-holds-partition' }.data.error",
                        org.hamcrest.Matchers.containsString("does not cover shared node(s) [node7]")));
        client.nodes().withName("node-z").delete();
        await().atMost(WAIT).untilAsserted(() -> io.restassured.RestAssured.given().get("/q/health/ready")
                .then().statusCode(200));
    }

    @Test
    void aPodSlurmHasNoRoomForWaitsAtTheTopAndTheNodeIsOvercommittedUntilThen() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        client.resource(aPod("web-0").on("node-a").requesting("2", "2Gi").obj()).create();
        await().atMost(WAIT).untilAsserted(() -> heldAndUndrained(2, 2048));
        long big = sbatch(harness, 6, 4000);
        await().atMost(WAIT).until(() -> job(big).isRunning());

        // the node is full: Slurm cannot cover the new pod at once
        client.resource(aPod("web-1").on("node-a").requesting("1", "1Gi").obj()).create();
        List<Long> waiting = new ArrayList<>();
        await().atMost(WAIT).untilAsserted(() -> {
            GenericNode gn = genericNode();
            assertThat(Conditions.isTrue(gn.getStatus().getConditions(), "Overcommitted")).isTrue();
            assertThat(gn.getStatus().getHolds().getWaiting()).isEqualTo(1);
            assertThat(holds()).anySatisfy(h -> {
                assertThat(h.running()).isFalse();
                assertThat(h.reason()).isEqualTo("Resources");
            });
        });
        holds().stream().filter(h -> !h.running()).forEach(h -> waiting.add(h.jobId()));
        assertThat(waiting).hasSize(1);
        // a Slurm job submitted later, which would fit once the big one ends, must not go before the hold
        long later = sbatch(harness, 6, 1000);
        harness.run("scancel", String.valueOf(big));
        await().atMost(WAIT).untilAsserted(() -> {
            heldAndUndrained(3, 3072);
            assertThat(Conditions.isTrue(genericNode().getStatus().getConditions(), "Overcommitted")).isFalse();
        });
        assertThat(job(later).isPending()).as("8 - 3 held leaves 5 CPUs: the 6-CPU job waits").isTrue();
        // what a waiting hold runs on the worker once it starts: a batch script (sleep) before 26.05; nothing on
        // 26.05, where holds are external jobs (the hold itself may be compacted away by now: its record stays)
        String waited = harness.run("scontrol", "show", "job", String.valueOf(waiting.get(0)));
        assertThat(waited).contains(shape().release() == SlurmHarness.Release.SLURM_26_05 ? "BatchFlag=0"
                : "BatchFlag=1");
    }

    @Test
    void aHoldAnAdminCancelsIsAskedForAgainAndTheJobThatTookItsRoomIsNamed() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        client.resource(aPod("web-0").on("node-a").requesting("2", "2Gi").obj()).create();
        await().atMost(WAIT).untilAsserted(() -> heldAndUndrained(2, 2048));
        long big = sbatch(harness, 6, 4000);
        await().atMost(WAIT).until(() -> job(big).isRunning());
        // the node is full; a job waits for 2 CPUs, which Slurm gives it the moment a hold ends
        long taker = sbatch(harness, 2, 1000);
        await().atMost(WAIT).untilAsserted(() -> assertThat(job(taker).reason()).isEqualTo("Resources"));

        // the copilot would hold the share again before Slurm starts the job (it sees the loss within a poll): the
        // admin's scancel comes while slurmrestd is down, so that the job takes the room first
        List<Long> cancelled = holds().stream().map(SlurmHold::jobId).toList();
        harness.stop("slurmrestd");
        try {
            harness.run(java.util.stream.Stream.concat(java.util.stream.Stream.of("scancel"),
                    cancelled.stream().map(String::valueOf)).toArray(String[]::new));
            await().atMost(WAIT).until(() -> harness.run("squeue", "-h", "-j", String.valueOf(taker), "-o", "%T")
                    .strip().equals("RUNNING"));
        } finally {
            harness.up();
        }
        await().atMost(WAIT).untilAsserted(() -> {
            GenericNode gn = genericNode();
            var over = Conditions.find(gn.getStatus().getConditions(), GenericNodeStatuses.OVERCOMMITTED);
            assertThat(over.getStatus()).isEqualTo("True");
            assertThat(over.getMessage()).contains("Slurm job(s) [" + taker + "] took the room of a lost hold");
            assertThat(holds()).as("asked for again, waiting at the top of Slurm's queue").anySatisfy(h -> {
                assertThat(h.running()).isFalse();
                assertThat(cancelled).doesNotContain(h.jobId());
            });
            assertThat(client.v1().events().inNamespace("default").list().getItems())
                    .filteredOn(e -> "node-a".equals(e.getInvolvedObject().getName())
                            && "HoldLost".equals(e.getReason()))
                    .anySatisfy(e -> assertThat(e.getMessage()).contains("hold " + cancelled.get(0))
                            .contains("Slurm job(s) [" + taker + "] started in its room"));
        });

        // the job that took the room ends: the waiting hold gets it, before Slurm's other jobs, and all is well
        harness.run("scancel", String.valueOf(taker));
        await().atMost(WAIT).untilAsserted(() -> {
            heldAndUndrained(2, 2048);
            var over = Conditions.find(genericNode().getStatus().getConditions(), GenericNodeStatuses.OVERCOMMITTED);
            assertThat(over.getStatus()).isEqualTo("False");
        });
    }

    @Test
    void aSlurmNodeLargerThanTheKubernetesAllocatableHoldsTheKubeletsReserveToo() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        // Slurm's node1 has 8 CPUs and 32000 MB; the kubelet reserved 1 CPU and 1280 MB of them
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("7", "30Gi").tainted().obj())
                .create();
        client.resource(aPod("web-0").on("node-a").requesting("2", "2Gi").obj()).create();
        await().atMost(WAIT).untilAsserted(() -> {
            heldAndUndrained(3, 2048 + 1280);
            assertThat(Conditions.find(genericNode().getStatus().getConditions(), "Ready").getMessage())
                    .contains("1 CPU and 1280 MB of it the kubelet's reserve");
        });
        // so Slurm has the 7 - 2 CPUs Kubernetes leaves of its allocatable, not 8 - 2
        long six = sbatch(harness, 6, 1000);
        await().atMost(WAIT).untilAsserted(() -> assertThat(job(six).reason()).isEqualTo("Resources"));
        assertThat(job(six).isPending()).isTrue();
    }

    /**
     * The copilot alone decides a hold's GRES: job_submit.lua adds them to every other job (with the prefix each
     * release wants), never to a hold in the holds partition, and not to a job that only looks like one elsewhere.
     */
    @Test
    void jobSubmitLuaGivesEveryJobItsK8sGresButLeavesTheCopilotsHoldsAlone() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        String hold = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-p", PARTITION, "-w", "node1", "-c", "1",
                "--mem=10", "-J", SlurmHold.NAME, "--comment=colocate:elsewhere", "--wrap", "sleep 60").strip();
        String job = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1", "-c", "2", "--mem=100",
                "-J", SlurmHold.NAME, "--comment=colocate:elsewhere", "--wrap", "sleep 60").strip();
        jobs.add(Long.parseLong(hold));
        jobs.add(Long.parseLong(job));
        String prefix = shape().release() == SlurmHarness.Release.SLURM_22_05 ? "gres:" : "gres/";
        assertThat(harness.run("scontrol", "show", "job", hold)).doesNotContain("k8scpu");
        assertThat(harness.run("scontrol", "show", "job", job))
                .contains("TresPerNode=" + prefix + "k8scpu:2," + prefix + "k8smemory:100");
    }

    /**
     * The holds partition is closed to all but root and SlurmUser (RootOnly=YES); a look-alike hold a user submitted
     * while it was open is left running, never adopted, and reported with its owner.
     */
    @Test
    void onlyRootAndSlurmUserMaySubmitToTheHoldsPartitionAndALookAlikeFromBeforeIsLeftAloneAndReported() {
        SlurmHarness harness = SlurmHarness.ensure(shape());
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        await().atMost(WAIT).until(() -> genericNode() != null);
        String[] lookAlike = {"sbatch", "--parsable", "-o", "/dev/null", "-p", PARTITION, "-w", "node1", "-c", "1",
            "--mem=100", "-J", SlurmHold.NAME, "--comment=colocate:node-a", "--wrap", "sleep 600"};
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> harness.runAsNobody(lookAlike))
                .hasMessageContaining("Access/permission denied");

        // as an earlier slurm.conf had it: open to all
        harness.run("scontrol", "update", "PartitionName=" + PARTITION, "RootOnly=NO");
        long foreign;
        try {
            foreign = Long.parseLong(harness.runAsNobody(lookAlike).strip().split(";")[0]);
            jobs.add(foreign);
            // closing the partition leaves a running job alone; a pending one would wait for ever (PartitionConfig)
            await().atMost(WAIT).until(() -> job(foreign).isRunning());
            if (shape().release() != SlurmHarness.Release.SLURM_24_11) {
                // 24.11's slurmrestd shows no partition flags, so only 22.05 and 26.05 can tell it is open
                await().atMost(WAIT).untilAsserted(() -> io.restassured.RestAssured.given().get("/q/health/ready")
                        .then().statusCode(503)
                        .body("checks.find { it.name == 'slurm-holds-partition' }.data.error",
                                org.hamcrest.Matchers.containsString("is open to every Slurm user")));
            }
        } finally {
            harness.run("scontrol", "update", "PartitionName=" + PARTITION, "RootOnly=YES");
        }
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(client.v1().events().inNamespace("default").list().getItems())
                    .filteredOn(e -> "node-a".equals(e.getInvolvedObject().getName())
                            && "ForeignHold".equals(e.getReason()))
                    .anySatisfy(e -> assertThat(e.getMessage()).contains("Slurm job " + foreign + " of user nobody"));
            io.restassured.RestAssured.given().get("/q/health/ready").then().statusCode(200);
        });
        assertThat(job(foreign).isRunning()).as("left alone").isTrue();
        assertThat(genericNode().getStatus().getHolds().getJobIds()).doesNotContain(foreign);
    }
}
