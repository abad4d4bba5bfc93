package dev.colocate.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.copilot.PodRequests;
import dev.colocate.copilot.Resources;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The product's promise, checked from a fresh read of Slurm and the API server: on each shared node {@code k-i}
 * (Slurm node {@code node-i}, 8 CPUs and 32000 MB), what Slurm's own jobs hold plus the requests of the pods bound
 * there fit the node. Slurm's own jobs are what it allocated, or the k8s GRES its jobs use where that is more, less
 * the copilot's holds (none in GRES mode), which are Kubernetes' share.
 */
public final class NodeInvariant {

    static final Duration WAIT = Duration.ofSeconds(60);

    private NodeInvariant() {
    }

    /** Asserts the promise on k-1..k-{@code nodes}, in the default namespace, and returns the holds it read. */
    public static List<SlurmHold> holds(KubernetesClient client, SlurmControl slurm, int nodes) {
        List<SlurmHold> holds = slurm.holds("holds").await().atMost(WAIT);
        free(client, slurm, nodes, holds).forEach((node, free) -> {
            assertThat(free.milliCpu()).as("CPU of " + node + " left over, negative when overcommitted")
                    .isGreaterThanOrEqualTo(0);
            assertThat(free.mb()).as("memory (MB) of " + node + " left over, negative when overcommitted")
                    .isGreaterThanOrEqualTo(0);
        });
        return holds;
    }

    /** What is left of each node k-1..k-{@code nodes} once Kubernetes' pods and Slurm's own jobs are counted. */
    public static Map<String, Left> free(KubernetesClient client, SlurmControl slurm, int nodes) {
        return free(client, slurm, nodes, slurm.holds("holds").await().atMost(WAIT));
    }

    /** Milli-CPUs and MB left over on a node; negative when the node is overcommitted. */
    public record Left(long milliCpu, long mb) {
    }

    private static Map<String, Left> free(KubernetesClient client, SlurmControl slurm, int nodes,
            List<SlurmHold> holds) {
        Map<String, SlurmNode> slurmNodes = slurm.nodes().await().atMost(WAIT).stream()
                .collect(Collectors.toMap(SlurmNode::name, n -> n));
        List<Pod> pods = client.pods().inNamespace("default").list().getItems();
        Map<String, Left> left = new java.util.TreeMap<>();
        for (int i = 1; i <= nodes; i++) {
            String node = "k-" + i;
            Resources k = pods.stream().filter(p -> node.equals(p.getSpec().getNodeName()))
                    .map(PodRequests::of).reduce(Resources.ZERO, Resources::plus);
            List<SlurmHold> held = holds.stream().filter(h -> h.running() && node.equals(h.kubernetesNode()))
                    .toList();
            long heldCpus = held.stream().mapToLong(SlurmHold::cpus).sum();
            long heldMb = held.stream().mapToLong(SlurmHold::memoryMb).sum();
            long gresCpus = held.stream().filter(SlurmHold::withGres).mapToLong(SlurmHold::cpus).sum();
            long gresMb = held.stream().filter(SlurmHold::withGres).mapToLong(SlurmHold::memoryMb).sum();
            SlurmNode s = slurmNodes.get("node" + i);
            long slurmCpus = Math.max(s.allocCpus() - heldCpus, s.gresUsed("k8scpu") - gresCpus);
            long slurmMb = Math.max(s.allocMemoryMb() - heldMb, s.gresUsed("k8smemory") - gresMb);
            left.put(node, new Left(8000 - k.milliCpu() - slurmCpus * 1000,
                    32000 - k.bytes() / (1024 * 1024) - slurmMb));
        }
        return left;
    }
}
