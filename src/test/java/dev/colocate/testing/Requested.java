package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * What the pods bound to one node request, summed from their specs here and not by colocate's code: the checks that
 * use it watch colocate from outside.
 */
record Requested(long milliCpu, long bytes) {

    static Requested onNode(List<Pod> pods, String node) {
        long cpu = 0;
        long bytes = 0;
        for (Pod pod : pods) {
            if (!node.equals(pod.getSpec().getNodeName())) {
                continue;
            }
            for (Container c : pod.getSpec().getContainers()) {
                Map<String, Quantity> requests = c.getResources() == null ? null : c.getResources().getRequests();
                if (requests != null && requests.get("cpu") != null) {
                    cpu += Quantity.getAmountInBytes(requests.get("cpu")).multiply(BigDecimal.valueOf(1000))
                            .longValue();
                }
                if (requests != null && requests.get("memory") != null) {
                    bytes += Quantity.getAmountInBytes(requests.get("memory")).longValue();
                }
            }
        }
        return new Requested(cpu, bytes);
    }
}
