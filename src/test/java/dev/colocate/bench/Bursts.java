package dev.colocate.bench;

import static dev.colocate.testing.TestPods.aPod;

import io.fabric8.kubernetes.client.KubernetesClient;

/** The bursts of pod events the copilot benchmarks replay. */
final class Bursts {

    private Bursts() {
    }

    /**
     * Creates 10 pods of {@code cpu} and 1Mi on each of the nodes {@code k-1..k-<nodes>}, already bound: each node's
     * ten back to back (as a scale-up lands) when {@code contiguous}, otherwise interleaved over the nodes.
     */
    static void tenPodsPerNode(KubernetesClient client, String tag, int nodes, boolean contiguous, String cpu) {
        for (int a = 0; a < (contiguous ? nodes : 10); a++) {
            for (int b = 0; b < (contiguous ? 10 : nodes); b++) {
                int node = contiguous ? a + 1 : b + 1;
                int pod = contiguous ? b : a;
                client.resource(aPod("burst-" + tag + "-" + node + "-" + pod).on("k-" + node)
                        .requesting(cpu, "1Mi").obj()).create();
            }
        }
    }
}
