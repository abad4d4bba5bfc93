package dev.colocate.operator;

import dev.colocate.api.Labels;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import java.util.Objects;

/** Whether a StatefulSet or Deployment runs its current template on all its replicas, from what its status says. */
final class Workloads {

    private Workloads() {
    }

    /** The config hash of the StatefulSet's pod template, or "" without one. */
    static String configHash(StatefulSet sts) {
        var meta = sts.getSpec().getTemplate().getMetadata();
        return meta == null || meta.getAnnotations() == null ? ""
                : meta.getAnnotations().getOrDefault(Labels.CONFIG_HASH, "");
    }

    /** Ready replicas of a StatefulSet (0 before its controller has said anything). */
    static int ready(StatefulSet sts) {
        StatefulSetStatus s = sts.getStatus();
        return s == null || s.getReadyReplicas() == null ? 0 : s.getReadyReplicas();
    }

    static boolean rolledOut(StatefulSet sts) {
        StatefulSetStatus s = sts.getStatus();
        int want = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
        return s != null && observed(sts.getMetadata().getGeneration(), s.getObservedGeneration())
                && ready(sts) >= want && nullToZero(s.getUpdatedReplicas()) >= want
                && (s.getUpdateRevision() == null || Objects.equals(s.getCurrentRevision(), s.getUpdateRevision()));
    }

    static boolean rolledOut(Deployment d) {
        DeploymentStatus s = d.getStatus();
        int want = d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
        return s != null && observed(d.getMetadata().getGeneration(), s.getObservedGeneration())
                && nullToZero(s.getAvailableReplicas()) >= want && nullToZero(s.getUpdatedReplicas()) >= want;
    }

    private static boolean observed(Long generation, Long observed) {
        return generation == null || (observed != null && observed >= generation);
    }

    private static int nullToZero(Integer i) {
        return i == null ? 0 : i;
    }
}
