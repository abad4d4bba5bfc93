package dev.colocate.testing;

import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Arrays;

/** Waits on GenericNodes as a user would watch them. */
public final class GenericNodes {

    private GenericNodes() {
    }

    /**
     * Waits until the copilot has written each node's GenericNode and found it Ready. colocate is ready before its
     * first syncs end; a bind to a node whose GenericNode is not there yet is refused, and kube-scheduler retries it.
     */
    public static void awaitReady(KubernetesClient client, Duration atMost, String... nodes) {
        await().atMost(atMost).until(() -> Arrays.stream(nodes).allMatch(name -> {
            GenericNode gn = client.resources(GenericNode.class).withName(name).get();
            return gn != null && gn.getStatus() != null
                    && Conditions.isTrue(gn.getStatus().getConditions(), "Ready");
        }));
    }
}
