package dev.colocate.bench;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.awaitility.Awaitility.await;

import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The copilot on 100 shared nodes of real Slurm 22.05 (node writes through scontrol) and 3,000 pods: sync lag of single
 * pod changes next to a bare setKubernetesShare, Slurm writes per node for a burst of 1,000 pod events, and memory.
 * Run with {@code mvn -Pbench verify}; it prints figures and asserts no timing.
 */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "101"), @ResourceArg(name = "shareMode", value = "gres")})
class CopilotBench {

    static final int NODES = 100;
    static final Duration WAIT = Duration.ofMinutes(3);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @Inject
    MeterRegistry registry;

    private Map<String, SlurmNode> slurmNodes() {
        return slurm.nodes().await().atMost(WAIT).stream().collect(Collectors.toMap(SlurmNode::name, n -> n));
    }

    private boolean allAt(long cpus) {
        Map<String, SlurmNode> nodes = slurmNodes();
        for (int i = 1; i <= NODES; i++) {
            if (nodes.get("node" + i).gres(SlurmNode.K8S_CPU) != cpus) {
                return false;
            }
        }
        return true;
    }

    private double writes() {
        return registry.get("colocate.slurm.share.writes").counter().count();
    }

    /** Creates 10 pods on each node and returns the Slurm writes until every count is {@code expectCpus}. */
    private double burst(String tag, boolean contiguous, long expectCpus) {
        double before = writes();
        Bursts.tenPodsPerNode(client, tag, NODES, contiguous, "10m");
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> allAt(expectCpus)
                && slurmNodes().get("node" + NODES).gres(SlurmNode.K8S_MEMORY) == expectedMemory());
        return writes() - before;
    }

    /** The k8smemory count node100 must show: 32000 MB less every pod's memory on it. */
    private long expectedMemory() {
        long mib = client.pods().inNamespace("default").list().getItems().stream()
                .filter(p -> ("k-" + NODES).equals(p.getSpec().getNodeName()))
                .mapToLong(p -> dev.colocate.copilot.PodRequestsAccess.bytes(p) / (1024 * 1024)).sum();
        return 32000 - mib;
    }

    @Test
    void syncLagBurstWritesAndMemory() throws Exception {
        Crds.apply(client);
        for (int i = 1; i <= NODES; i++) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj()).create();
        }
        // 3,000 pods: 30 of 100m/256Mi per node leave floor(8 - 3) = 5 CPUs to Slurm
        for (int i = 1; i <= NODES; i++) {
            for (int p = 0; p < 30; p++) {
                client.resource(aPod("base-" + i + "-" + p).on("k-" + i).requesting("100m", "256Mi").obj()).create();
            }
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> allAt(5));

        System.gc();
        long heap = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        String rss = Files.readAllLines(Path.of("/proc/self/status")).stream()
                .filter(l -> l.startsWith("VmRSS")).findFirst().orElse("VmRSS: ?");

        // two bursts of 1,000 pod events (10 pods of 10m/1Mi per node; each pod changes k8smemory by 1 MB):
        // first each node's ten back to back, as a scale-up lands, then interleaved over all nodes
        long contiguousStart = System.nanoTime();
        double contiguous = burst("a", true, 4);
        long contiguousMs = (System.nanoTime() - contiguousStart) / 1_000_000;
        long interleavedStart = System.nanoTime();
        double interleaved = burst("b", false, 4);
        long interleavedMs = (System.nanoTime() - interleavedStart) / 1_000_000;

        // single changes, one at a time: a 1-CPU pod on a node, until Slurm shows 3 on it
        long[] lag = new long[50];
        for (int n = 0; n < lag.length; n++) {
            String k = "k-" + (n + 1);
            String alias = "node" + (n + 1);
            long t0 = System.nanoTime();
            client.resource(aPod("single-" + n).on(k).requesting("1", "1Mi").obj()).create();
            await().atMost(WAIT).pollInterval(Duration.ofMillis(2)).until(() ->
                    slurm.node(alias).await().atMost(WAIT).gres(SlurmNode.K8S_CPU) == 3);
            lag[n] = System.nanoTime() - t0;
        }
        int[] flip = {0};
        long[] bare = new long[50];
        for (int n = 0; n < bare.length; n++) {
            long t0 = System.nanoTime();
            slurm.setKubernetesShare("node101", 6 + (flip[0]++ % 2), 30000).await().atMost(WAIT);
            bare[n] = System.nanoTime() - t0;
        }

        System.out.println();
        System.out.println("== copilot, Slurm 22.05.8 (scontrol node writes), 100 shared nodes, 3,000 pods ==");
        System.out.println(Percentiles.header());
        System.out.println(Percentiles.of("pod created -> Slurm count seen (end to end)", lag).row());
        System.out.println(Percentiles.of("bare setKubernetesShare (scontrol update)", bare).row());
        System.out.println(String.format(Locale.ROOT, "burst of 1000 pod events, each node's 10 back to back: "
                + "%.0f Slurm writes, %.2f per node (burst and convergence took %d ms)", contiguous, contiguous / NODES,
                contiguousMs));
        System.out.println(String.format(Locale.ROOT, "burst of 1000 pod events, interleaved over the nodes: "
                + "%.0f Slurm writes, %.2f per node (burst and convergence took %d ms)", interleaved,
                interleaved / NODES, interleavedMs));
        System.out.println(String.format(Locale.ROOT, "after 100 nodes and 3000 pods: heap used %.1f MiB, %s "
                + "(one JVM: the application, the mock API server and the test)", heap / 1048576.0,
                rss.replaceAll("\\s+", " ")));
        System.out.println();
    }
}
