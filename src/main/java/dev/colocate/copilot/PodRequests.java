package dev.colocate.copilot;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
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
     * the peak of any one init container (plus the sidecars started before it), plus the pod overhead. A running
     * container counts as the kube-scheduler counts it during an in-place resize: the larger of its spec and what the
     * kubelet reports it has (its status resources and allocated resources), so a pod shrunk in its spec holds its old
     * size until the kubelet has applied the new one; a resize the kubelet called infeasible counts as the kubelet's
     * figures only.
     */
    public static Resources of(Pod pod) {
        PodSpec spec = pod.getSpec();
        if (spec == null) {
            return Resources.ZERO;
        }
        Map<String, ContainerStatus> statuses = statuses(pod);
        boolean infeasible = resizeInfeasible(pod);
        Resources apps = Resources.ZERO;
        for (Container c : orEmpty(spec.getContainers())) {
            apps = apps.plus(lifelong(c, statuses.get(c.getName()), infeasible));
        }
        Resources sidecars = Resources.ZERO;
        Resources initPeak = Resources.ZERO;
        for (Container init : orEmpty(spec.getInitContainers())) {
            if ("Always".equals(init.getRestartPolicy())) {
                Resources r = lifelong(init, statuses.get(init.getName()), infeasible);
                sidecars = sidecars.plus(r);
                initPeak = initPeak.max(sidecars);
            } else {
                initPeak = initPeak.max(sidecars.plus(requests(init)));
            }
        }
        Resources running = apps.plus(sidecars);
        return running.max(initPeak).plus(Resources.of(spec.getOverhead()));
    }

    /** A container that runs for the pod's life, as the kube-scheduler's resource helper counts it. */
    private static Resources lifelong(Container c, ContainerStatus status, boolean infeasible) {
        if (status == null || status.getResources() == null) {
            return requests(c);
        }
        Resources reported = Resources.of(status.getResources().getRequests())
                .max(Resources.of(status.getAllocatedResources()));
        return infeasible ? reported : reported.max(requests(c));
    }

    private static Map<String, ContainerStatus> statuses(Pod pod) {
        Map<String, ContainerStatus> byName = new HashMap<>();
        if (pod.getStatus() != null) {
            orEmpty(pod.getStatus().getInitContainerStatuses()).forEach(s -> byName.put(s.getName(), s));
            orEmpty(pod.getStatus().getContainerStatuses()).forEach(s -> byName.put(s.getName(), s));
        }
        return byName;
    }

    private static boolean resizeInfeasible(Pod pod) {
        return pod.getStatus() != null && orEmpty(pod.getStatus().getConditions()).stream()
                .anyMatch(c -> "PodResizePending".equals(c.getType()) && "Infeasible".equals(c.getReason()));
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
