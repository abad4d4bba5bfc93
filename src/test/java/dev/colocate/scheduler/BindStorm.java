package dev.colocate.scheduler;

import static dev.colocate.testing.TestPods.aPod;

import dev.colocate.testing.SchedulerStandIn;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Pods arriving without pause from several threads, as kube-scheduler sends them to colocate's extender: each is
 * filtered over the shared nodes and bound to one that passed; a refused pod is deleted (kube-scheduler would place
 * it elsewhere) and a third of the time a bound pod goes. Pods take whole CPUs and MiB, so that what Slurm must hold
 * for them is their sum. Every answer is recorded: a bind that does not answer at all is an error, not a refusal.
 */
final class BindStorm implements AutoCloseable {

    private static final String[] CPUS = {"1", "2"};
    private static final String[] MEMORY = {"512Mi", "1Gi"};

    private static final AtomicInteger STORMS = new AtomicInteger();

    private final String prefix = "storm" + STORMS.incrementAndGet() + "-";
    private final KubernetesClient client;
    private final SchedulerStandIn scheduler;
    private final List<String> nodes;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger bound = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final List<Long> boundStarts = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> boundPods = ConcurrentHashMap.newKeySet();
    private final Set<String> everBound = ConcurrentHashMap.newKeySet();
    private final List<String> refusals = Collections.synchronizedList(new ArrayList<>());
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService pool;

    BindStorm(KubernetesClient client, SchedulerStandIn scheduler, List<String> nodes, int threads, long seed) {
        this.client = client;
        this.scheduler = scheduler;
        this.nodes = nodes;
        this.pool = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            Random random = new Random(seed + t);
            pool.submit(() -> run(random));
        }
    }

    private void run(Random random) {
        while (!stop.get()) {
            try {
                once(random);
            } catch (RuntimeException e) {
                errors.add(e.toString());
            }
            // pacing, not waiting: a refusal comes back at once while Slurm is down, and the storm should not
            // become a flood of pod creations on the API server
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private void once(Random random) {
        Pod pod = client.resource(aPod(prefix + next.incrementAndGet())
                .requesting(CPUS[random.nextInt(CPUS.length)], MEMORY[random.nextInt(MEMORY.length)]).obj()).create();
        long start = System.nanoTime();
        List<String> passing = scheduler.filter(pod, nodes).nodeNames();
        String error = passing == null || passing.isEmpty() ? "filter: no node passed"
                : scheduler.bind(pod, passing.get(random.nextInt(passing.size())));
        if (error == null) {
            SchedulerStandIn.bindLikeTheApiServer(client, pod);
            boundPods.add(pod.getMetadata().getName());
            everBound.add(pod.getMetadata().getName());
            bound.incrementAndGet();
            boundStarts.add(start);
        } else {
            refused.incrementAndGet();
            if (refusals.size() < 50) {
                refusals.add(error);
            }
            client.resource(pod).delete();
        }
        if (random.nextInt(3) == 0 && !boundPods.isEmpty()) {
            List<String> names = new ArrayList<>(boundPods);
            String name = names.get(random.nextInt(names.size()));
            if (boundPods.remove(name)) {
                client.pods().inNamespace("default").withName(name).delete();
            }
        }
    }

    int bound() {
        return bound.get();
    }

    /** How many pods were bound whose filter started after {@code nanoTime}. */
    long boundStartedAfter(long nanoTime) {
        synchronized (boundStarts) {
            return boundStarts.stream().filter(s -> s - nanoTime > 0).count();
        }
    }

    int refused() {
        return refused.get();
    }

    List<String> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }

    List<String> refusals() {
        synchronized (refusals) {
            return List.copyOf(refusals);
        }
    }

    /** Bindings colocate created for pods it did not report bound: pods admitted unchecked. */
    List<String> bindingsOfRefusedPods() {
        return client.bindings().inNamespace("default").list().getItems().stream()
                .map(Binding::getMetadata).map(m -> m.getName())
                .filter(n -> n.startsWith(prefix) && !everBound.contains(n)).toList();
    }

    @Override
    public String toString() {
        return bound.get() + " bound, " + refused.get() + " refused (" + refusals().stream().distinct().limit(5)
                .toList() + "), errors " + errors().stream().limit(5).toList();
    }

    /** Stops the storm and waits for the binds under way. */
    @Override
    public void close() {
        stop.set(true);
        pool.shutdown();
        try {
            if (!pool.awaitTermination(2, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the storm's binds did not end: " + this);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
