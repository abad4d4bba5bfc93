package dev.colocate.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the mutating webhook does to a pod created in a namespace labelled {@code colocate.dev/enabled=true}: send it to
 * the {@code colocate-scheduler} profile and let it tolerate the shared nodes' taint. Pure: a pod in, the RFC 6902
 * operations out (none when the pod is left alone).
 *
 * <p>A pod is left alone when it is already bound ({@code spec.nodeName}) or names a scheduler of its own: only pods
 * that would go to the default scheduler are redirected, and only redirected pods get the toleration, so no other
 * scheduler can put a pod on a shared node without the copilot's two-phase admission.
 */
public final class PodOptIn {

    public static final String SCHEDULER_NAME = "colocate-scheduler";
    public static final String TAINT_KEY = "colocate.dev/shared";
    public static final String TAINT_VALUE = "true";
    public static final String TAINT_EFFECT = "NoSchedule";
    private static final String DEFAULT_SCHEDULER = "default-scheduler";
    private static final Taint SHARED_TAINT = new TaintBuilder().withKey(TAINT_KEY).withValue(TAINT_VALUE)
            .withEffect(TAINT_EFFECT).build();

    private PodOptIn() {
    }

    /** The JSON patch for {@code pod}; empty when it needs none. */
    public static List<Map<String, Object>> patch(Pod pod) {
        PodSpec spec = pod.getSpec();
        if (spec == null || notBlank(spec.getNodeName())) {
            return List.of();
        }
        String scheduler = spec.getSchedulerName();
        boolean toDefault = !notBlank(scheduler) || DEFAULT_SCHEDULER.equals(scheduler);
        if (!toDefault && !SCHEDULER_NAME.equals(scheduler)) {
            return List.of();
        }
        List<Map<String, Object>> ops = new ArrayList<>();
        if (toDefault) {
            ops.add(Map.of("op", "add", "path", "/spec/schedulerName", "value", SCHEDULER_NAME));
        }
        List<Toleration> tolerations = spec.getTolerations();
        if (tolerations == null || tolerations.isEmpty()) {
            ops.add(Map.of("op", "add", "path", "/spec/tolerations", "value", List.of(toleration())));
        } else if (tolerations.stream().noneMatch(PodOptIn::toleratesSharedTaint)) {
            ops.add(Map.of("op", "add", "path", "/spec/tolerations/-", "value", toleration()));
        }
        return ops;
    }

    /** The toleration of the shared-node taint that opted-in pods carry (the webhook adds it), as JSON. */
    public static Map<String, Object> toleration() {
        return Map.of("key", TAINT_KEY, "operator", "Equal", "value", TAINT_VALUE, "effect", TAINT_EFFECT);
    }

    static boolean toleratesSharedTaint(Toleration t) {
        return tolerates(t, SHARED_TAINT);
    }

    /** Kubernetes' own rule (k8s.io/api/core/v1 Toleration.ToleratesTaint): whether the toleration covers the taint. */
    public static boolean tolerates(Toleration t, Taint taint) {
        if (notBlank(t.getEffect()) && !t.getEffect().equals(taint.getEffect())) {
            return false;
        }
        if (notBlank(t.getKey()) && !t.getKey().equals(taint.getKey())) {
            return false;
        }
        if ("Exists".equals(t.getOperator())) {
            return true;
        }
        // An empty key with operator Equal tolerates nothing; Equal (or no operator) compares the value.
        return notBlank(t.getKey())
                && Objects.toString(t.getValue(), "").equals(Objects.toString(taint.getValue(), ""));
    }

    private static boolean notBlank(String s) {
        return s != null && !s.isBlank();
    }
}
