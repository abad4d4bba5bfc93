package dev.colocate.bench;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.awaitility.Awaitility.await;

import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The copilot in hold mode on 100 shared nodes of real Slurm 22.05 (salloc): how many Slurm calls a burst of 1,000
 * pod events costs per node, counted from Slurm's own job records (every grant is a job; every cancel ends one).
 * Prints figures, asserts no timing.
 */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "nodes", value = "101"))
class HoldBurstBench {

    static final int NODES = 100;
    static final Duration WAIT = Duration.ofMinutes(3);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    /** Every hold job Slurm still knows (running, waiting, or ended within MinJobAge), by id. */
    private Map<Long, SlurmJob> holdJobs() {
        return slurm.jobs().await().atMost(WAIT).stream().filter(j -> SlurmHold.NAME.equals(j.name()))
                .collect(Collectors.toMap(SlurmJob::id, j -> j));
    }

    /** Whether every node's granted holds cover the given CPUs and MB. */
    private boolean covered(long cpus, long mb) {
        Map<String, long[]> held = new HashMap<>();
        for (SlurmHold h : slurm.holds("holds").await().atMost(WAIT)) {
            if (h.running()) {
                long[] sum = held.computeIfAbsent(h.kubernetesNode(), n -> new long[2]);
                sum[0] += h.cpus();
                sum[1] += h.memoryMb();
            }
        }
        for (int i = 1; i <= NODES; i++) {
            long[] sum = held.get("k-" + i);
            if (sum == null || sum[0] < cpus || sum[1] < mb) {
                return false;
            }
        }
        return true;
    }

    /**
     * Creates 10 pods of {@code podCpu} and 1Mi on each node (contiguous: each node's ten back to back; otherwise interleaved over
     * the nodes) and returns, per node, the Slurm calls until every node is covered: grants (new hold jobs) plus
     * cancels (hold jobs that were active before and ended, and new ones that ended).
     */
    private int[] burst(String tag, boolean contiguous, String podCpu, long cpus, long mb) {
        Map<Long, SlurmJob> before = holdJobs();
        Set<Long> activeBefore = before.values().stream().filter(j -> SlurmJob.ACTIVE.contains(j.state()))
                .map(SlurmJob::id).collect(Collectors.toSet());
        Bursts.tenPodsPerNode(client, tag, NODES, contiguous, podCpu);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> covered(cpus, mb));
        Map<Long, SlurmJob> after = holdJobs();
        int[] calls = new int[NODES + 1];
        for (SlurmJob j : after.values()) {
            int node = Integer.parseInt(j.comment().replace(SlurmHold.COMMENT_PREFIX + "k-", ""));
            boolean ended = !SlurmJob.ACTIVE.contains(j.state());
            if (!before.containsKey(j.id())) {
                calls[node] += ended ? 2 : 1;
            } else if (activeBefore.contains(j.id()) && ended) {
                calls[node] += 1;
            }
        }
        return calls;
    }

    private static String describe(String what, int[] calls) {
        int max = 0;
        long sum = 0;
        for (int i = 1; i <= NODES; i++) {
            max = Math.max(max, calls[i]);
            sum += calls[i];
        }
        return String.format(Locale.ROOT, "%s: %d Slurm calls, %.2f per node, at most %d on one node", what, sum,
                (double) sum / NODES, max);
    }

    @Test
    void slurmCallsPerNodeForABurstOfPodEvents() {
        Crds.apply(client);
        for (int i = 1; i <= NODES; i++) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                    .create();
        }
        // 3,000 pods: 30 of 100m/256Mi per node, covered by 3 CPUs and 7680 MB
        for (int i = 1; i <= NODES; i++) {
            for (int p = 0; p < 30; p++) {
                client.resource(aPod("base-" + i + "-" + p).on("k-" + i).requesting("100m", "256Mi").obj()).create();
            }
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> covered(3, 7680));

        // each burst adds 10 MiB per node, and CPU across a whole-CPU line: the first 10 x 10m, from 3000m to
        // 3100m (4 CPUs); the second 10 x 100m, from 3100m to 4100m (5 CPUs)
        long t0 = System.nanoTime();
        int[] contiguous = burst("a", true, "10m", 4, 7690);
        long contiguousMs = (System.nanoTime() - t0) / 1_000_000;
        long t1 = System.nanoTime();
        int[] interleaved = burst("b", false, "100m", 5, 7700);
        long interleavedMs = (System.nanoTime() - t1) / 1_000_000;

        System.out.println();
        System.out.println("== copilot in hold mode, Slurm 22.05.8 (salloc), 100 shared nodes, 3,000 pods ==");
        System.out.println(describe("burst of 1000 pod events, each node's 10 back to back (" + contiguousMs
                + " ms to cover)", contiguous));
        System.out.println(describe("burst of 1000 pod events, interleaved over the nodes (" + interleavedMs
                + " ms to cover)", interleaved));
        System.out.println("holds now: " + slurm.holds("holds").await().atMost(WAIT).stream()
                .collect(Collectors.groupingBy(SlurmHold::running, Collectors.counting())));
        System.out.println();
    }
}
