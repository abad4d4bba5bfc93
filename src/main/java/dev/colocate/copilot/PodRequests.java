package dev.colocate.copilot;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What a pod holds on its node, counted the way the kube-scheduler counts it. */
public final class PodRequests {

    private PodRequests() {
    }

    /**
     * The pod's effective request: the larger of (app containers plus restartable init containers, i.e. sidecars) and
     * the peak of any one init container (plus the sidecars started before it), plus the pod overhead.
     */
    public static Resources of(Pod pod) {
        PodSpec spec = pod.getSpec();
        if (spec == null) {
            return Resources.ZERO;
        }
        Resources apps = sum(spec.getContainers());
        Resources sidecars = Resources.ZERO;
        Resources initPeak = Resources.ZERO;
        for (Container init : orEmpty(spec.getInitContainers())) {
            Resources r = requests(init);
            if ("Always".equals(init.getRestartPolicy())) {
                sidecars = sidecars.plus(r);
                initPeak = initPeak.max(sidecars);
            } else {
                initPeak = initPeak.max(sidecars.plus(r));
            }
        }
        Resources running = apps.plus(sidecars);
        return running.max(initPeak).plus(Resources.of(spec.getOverhead()));
    }

    private static Resources sum(List<Container> containers) {
        Resources total = Resources.ZERO;
        for (Container c : orEmpty(containers)) {
            total = total.plus(requests(c));
        }
        return total;
    }

    /**
     * A container's requests. Where a resource has a limit but no request, the API server sets the request to the
     * limit; that defaulting is applied here too, so a pod is counted the same whether or not it was defaulted.
     */
    static Resources requests(Container c) {
        ResourceRequirements rr = c.getResources();
        if (rr == null) {
            return Resources.ZERO;
        }
        Map<String, Quantity> effective = new HashMap<>();
        if (rr.getLimits() != null) {
            effective.putAll(rr.getLimits());
        }
        if (rr.getRequests() != null) {
            effective.putAll(rr.getRequests());
        }
        return Resources.of(effective);
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }
}
