package dev.colocate.sandbox;

import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import dev.colocate.scheduler.PodOptIn;
import dev.colocate.testing.SchedulerStandIn;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A stand-in for kube-scheduler's colocate-scheduler profile, because the embedded API server schedules nothing:
 * every half second it takes the pods of schedulerName colocate-scheduler that have no node, keeps the nodes whose
 * taints they tolerate, and asks colocate's extender over HTTP to filter, prioritize and bind, as kube-scheduler
 * would. It is not kube-scheduler: no other plugin runs, and an unschedulable pod is simply tried again.
 */
final class StandInScheduler implements AutoCloseable {

    /** What became of a pod: the node it was bound to, or why no node would take it. */
    record Decision(String node, Map<String, String> failed) {
    }

    /** kube-scheduler backs off unschedulable pods; this stand-in tries them again after this long. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final KubernetesClient client;
    private final SchedulerStandIn extender;
    private final Consumer<String> out;
    private final Map<String, Decision> decisions = new ConcurrentHashMap<>();
    private final Map<String, Long> triedAt = new ConcurrentHashMap<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "stand-in-kube-scheduler");
        thread.setDaemon(true);
        return thread;
    });

    StandInScheduler(KubernetesClient client, URI colocate, Consumer<String> out) {
        this.client = client;
        this.extender = new SchedulerStandIn(colocate);
        this.out = out;
    }

    StandInScheduler start() {
        loop.scheduleWithFixedDelay(this::pass, 0, 500, TimeUnit.MILLISECONDS);
        return this;
    }

    /** The latest decision on pod {@code namespace/name}, or null while none was made. */
    Decision decision(String namespace, String name) {
        return decisions.get(namespace + "/" + name);
    }

    private void pass() {
        try {
            for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
                if (PodOptIn.SCHEDULER_NAME.equals(pod.getSpec().getSchedulerName())
                        && pod.getSpec().getNodeName() == null && pod.getMetadata().getDeletionTimestamp() == null) {
                    schedule(pod);
                }
            }
        } catch (RuntimeException e) {
            out.accept("[stand-in kube-scheduler] " + e.getMessage() + "; trying again");
        }
    }

    private void schedule(Pod pod) {
        String key = pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
        Long tried = triedAt.get(key);
        if (tried != null && System.nanoTime() - tried < RETRY_NANOS) {
            return;
        }
        List<String> candidates = client.nodes().list().getItems().stream().filter(n -> tolerates(pod, n))
                .map(n -> n.getMetadata().getName()).sorted().toList();
        ExtenderFilterResult filtered = extender.filter(pod, candidates);
        Map<String, String> failed = new TreeMap<>();
        if (filtered.failedNodes() != null) {
            failed.putAll(filtered.failedNodes());
        }
        if (filtered.failedAndUnresolvableNodes() != null) {
            failed.putAll(filtered.failedAndUnresolvableNodes());
        }
        List<String> passed = filtered.nodeNames() == null ? List.of() : filtered.nodeNames();
        if (passed.isEmpty()) {
            triedAt.put(key, System.nanoTime());
            Decision decision = new Decision(null, failed);
            if (!decision.equals(decisions.get(key))) {
                StringBuilder why = new StringBuilder("[stand-in kube-scheduler] " + key + " is unschedulable: 0/"
                        + candidates.size() + " nodes passed colocate's filter");
                failed.forEach((node, reason) -> why.append("\n      ").append(node).append(": ").append(reason));
                out.accept(why.toString());
            }
            // recorded once told, so that the walkthrough's next line follows this one
            decisions.put(key, decision);
            return;
        }
        List<HostPriority> scores = extender.prioritize(pod, passed);
        String node = scores.stream().sorted(Comparator.comparingLong(HostPriority::score).reversed()
                .thenComparing(HostPriority::host)).map(HostPriority::host).findFirst().orElse(passed.get(0));
        String error = extender.bind(pod, node);
        if (error != null) {
            out.accept("[stand-in kube-scheduler] " + key + ": colocate refused the bind to " + node + ": " + error
                    + "; trying again");
            return;
        }
        SchedulerStandIn.bindLikeTheApiServer(client, pod);
        StringBuilder scored = new StringBuilder();
        scores.stream().sorted(Comparator.comparing(HostPriority::host))
                .forEach(s -> scored.append(scored.length() == 0 ? "" : " ").append(s.host()).append('=')
                        .append(s.score()));
        out.accept("[stand-in kube-scheduler] " + key + " -> " + node + "\n      filter passed " + String.join(" ", passed)
                + "; prioritize " + scored + "; bind: colocate reserved it with Slurm, then bound it");
        decisions.put(key, new Decision(node, failed));
    }

    /** Whether the pod tolerates every NoSchedule and NoExecute taint of the node, by Kubernetes' matching rule. */
    static boolean tolerates(Pod pod, Node node) {
        List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of()
                : node.getSpec().getTaints();
        List<Toleration> tolerations = pod.getSpec().getTolerations() == null ? List.of()
                : pod.getSpec().getTolerations();
        return taints.stream().filter(t -> !"PreferNoSchedule".equals(t.getEffect()))
                .allMatch(t -> tolerations.stream().anyMatch(tol -> PodOptIn.tolerates(tol, t)));
    }

    @Override
    public void close() {
        loop.shutdownNow();
    }
}
