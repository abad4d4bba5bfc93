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
        Map<String, SlurmNode> slurmNodes = slurm.nodes().await().atMost(WAIT).stream()
                .collect(Collectors.toMap(SlurmNode::name, n -> n));
        List<SlurmHold> holds = slurm.holds("holds").await().atMost(WAIT);
        List<Pod> pods = client.pods().inNamespace("default").list().getItems();
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
            assertThat(k.milliCpu() + slurmCpus * 1000).as("CPU of " + node).isLessThanOrEqualTo(8000);
            assertThat(k.bytes() / (1024 * 1024) + slurmMb).as("memory of " + node).isLessThanOrEqualTo(32000);
        }
        return holds;
    }
}
