package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.copilot.NodeSync;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.testing.Crds;
import dev.colocate.testing.OvercommitSampler;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A randomized, concurrent stress of admission against real Slurm in hold mode (the default): binds from several
 * threads, pod deletions, pods bound without colocate, Slurm jobs submitted and cancelled, and syncs forced next to
 * the copilot's own resyncs, while {@link OvercommitSampler} watches every 100 ms, from outside colocate, that no
 * shared node ever holds more than it has. The operations come from a seed, printed with every result, so that a
 * failure can be run again with {@code -Dcolocate.stress.seed=...} (the threads' interleaving still varies).
 */
public abstract class ConcurrentStress {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final int NODES = 3;
    static final int THREADS = 4;
    static final List<String> ALL = List.of("k-1", "k-2", "k-3", "plain");
    static final String[] CPUS = {"250m", "500m", "1", "1500m", "2"};
    static final String[] MEMORY = {"256Mi", "512Mi", "1Gi", "2Gi", "3Gi"};

    enum Kind { BIND, DELETE, FOREIGN_POD, SUBMIT, CANCEL, SYNC }

    /** One operation, drawn from the seed: its kind and the random numbers it uses. */
    record Op(int index, Kind kind, int a, int b, int c) {
    }

    @Inject
    protected KubernetesClient client;

    @Inject
    protected SlurmControl slurm;

    @Inject
    protected NodeSync sync;

    @Inject
    protected io.micrometer.core.instrument.MeterRegistry registry;

    /** colocate_sync_lag_seconds' count and p50/p99 in ms (its window: the last minutes of the run). */
    private String syncLag() {
        var timer = registry.find("colocate.sync.lag").timer();
        if (timer == null) {
            return "no sync lag recorded";
        }
        StringBuilder out = new StringBuilder("sync lag: " + timer.count() + " writes");
        for (var p : timer.takeSnapshot().percentileValues()) {
            out.append(String.format(java.util.Locale.ROOT, ", p%.0f %.1f ms", p.percentile() * 100,
                    p.value(TimeUnit.MILLISECONDS)));
        }
        return out.toString();
    }

    /** How many operations this run makes. */
    protected abstract int operations();

    static List<Op> draw(long seed, int count) {
        Random random = new Random(seed);
        List<Op> ops = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int roll = random.nextInt(100);
            Kind kind = roll < 45 ? Kind.BIND : roll < 65 ? Kind.DELETE : roll < 70 ? Kind.FOREIGN_POD
                    : roll < 85 ? Kind.SUBMIT : roll < 95 ? Kind.CANCEL : Kind.SYNC;
            ops.add(new Op(i, kind, random.nextInt(1 << 20), random.nextInt(1 << 20), random.nextInt(1 << 20)));
        }
        return ops;
    }

    @Test
    public void noNodeIsEverOvercommittedUnderConcurrentBindsJobsAndDeletions() throws Exception {
        long seed = Long.getLong("colocate.stress.seed", System.nanoTime());
        SlurmHarness harness = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(NODES));
        SchedulerStandIn scheduler = new SchedulerStandIn(URI.create(RestAssured.baseURI + ":" + RestAssured.port));
        Crds.apply(client);
        List<OvercommitSampler.Node> shared = new ArrayList<>();
        for (int i = 1; i <= NODES; i++) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                    .create();
            shared.add(new OvercommitSampler.Node("k-" + i, "node" + i, 8000, 32000));
        }
        client.nodes().resource(aNode("plain").allocatable("8", "32000Mi").obj()).create();
        await().atMost(WAIT).until(() -> shared.stream().allMatch(n -> {
            GenericNode gn = client.resources(GenericNode.class).withName(n.kubernetes()).get();
            return gn != null && gn.getStatus() != null
                    && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY);
        }));

        // as kube-scheduler reaches the copilot, through a Service that routes to it only once it is ready: the
        // GenericNodes may still show an earlier application's Ready
        await().atMost(WAIT).untilAsserted(() -> RestAssured.given().get("/q/health/ready").then().statusCode(200));

        List<Op> ops = draw(seed, operations());
        Map<Kind, AtomicInteger> done = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            done.put(k, new AtomicInteger());
        }
        AtomicInteger bound = new AtomicInteger();
        Map<String, Pod> onShared = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Long> jobs = new ConcurrentLinkedQueue<>();
        AtomicInteger next = new AtomicInteger();
        AtomicLong failures = new AtomicLong();
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        long started = System.nanoTime();
        OvercommitSampler sampler = new OvercommitSampler(harness, client, shared, "holds");
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < ops.size(); i = next.getAndIncrement()) {
                        Op op = ops.get(i);
                        try {
                            run(op, harness, scheduler, onShared, jobs, bound);
                            done.get(op.kind()).incrementAndGet();
                        } catch (RuntimeException e) {
                            failures.incrementAndGet();
                            if (errors.size() < 5) {
                                errors.add(op + ": " + e);
                            }
                        }
                    }
                }));
            }
            for (Future<?> w : workers) {
                w.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
            sampler.close();
            jobs.forEach(id -> harness.run("scancel", String.valueOf(id)));
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        String report = String.format("seed %d: %d operations %s in %.1f s by %d threads, %d pods bound to shared nodes,"
                + " %d failed operations %s; the sampler took %d samples and saw %d overcommits %s", seed, ops.size(),
                done, seconds, THREADS, bound.get(), failures.get(), errors, sampler.samples(),
                sampler.violations().size(), sampler.violations().stream().limit(5).toList()) + "; " + syncLag();
        System.out.println("ConcurrentStress " + report);

        assertThat(sampler.violations()).as(report).isEmpty();
        assertThat(failures.get()).as(report).isZero();
        assertThat(sampler.samples()).as(report).isGreaterThan((int) seconds);
        assertThat(bound.get()).as("shared nodes took pods at all: " + report).isPositive();

        // afterwards nothing is leaked: no hold once the pods are gone, no reservation, no node drained
        client.pods().inAnyNamespace().delete();
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(slurm.holds("holds").await().atMost(WAIT)).as(report).isEmpty();
            for (OvercommitSampler.Node n : shared) {
                assertThat(client.resources(GenericNode.class).withName(n.kubernetes()).get().getStatus()
                        .getReservations()).as(report).isNullOrEmpty();
            }
        });
        assertThat(harness.run("sinfo", "-h", "-R").strip()).as("drained nodes; " + report).isEmpty();
    }

    private void run(Op op, SlurmHarness harness, SchedulerStandIn scheduler, Map<String, Pod> onShared,
            ConcurrentLinkedQueue<Long> jobs, AtomicInteger bound) {
        switch (op.kind()) {
            case BIND -> {
                Pod pod = client.resource(aPod("s" + op.index()).requesting(CPUS[op.a() % CPUS.length],
                        MEMORY[op.b() % MEMORY.length]).obj()).create();
                List<String> passing = scheduler.filter(pod, ALL).nodeNames().stream()
                        .filter(n -> n.startsWith("k-")).toList();
                if (!passing.isEmpty()) {
                    String node = passing.get(op.c() % passing.size());
                    if (scheduler.bind(pod, node) == null) {
                        SchedulerStandIn.bindLikeTheApiServer(client, pod);
                        onShared.put(pod.getMetadata().getName(), pod);
                        bound.incrementAndGet();
                        return;
                    }
                }
                // refused everywhere it was tried: kube-scheduler would place it on the plain node instead
                client.resource(pod).delete();
            }
            case DELETE -> {
                List<String> names = new ArrayList<>(onShared.keySet());
                if (!names.isEmpty()) {
                    String name = names.get(op.a() % names.size());
                    if (onShared.remove(name) != null) {
                        client.pods().inNamespace("default").withName(name).delete();
                    }
                }
            }
            case FOREIGN_POD -> {
                // bound by another scheduler, to the node colocate does not share: it must change nothing
                String name = "f" + op.index();
                client.resource(aPod(name).on("plain").requesting("1", "1Gi").obj()).create();
                if (op.a() % 2 == 0) {
                    client.pods().inNamespace("default").withName(name).delete();
                }
            }
            case SUBMIT -> {
                String out = harness.run("sbatch", "--parsable", "-o", "/dev/null", "-t", "1",
                        "-w", "node" + (1 + op.a() % NODES), "--cpus-per-task=" + (1 + op.b() % 3),
                        "--mem=" + (500 + op.c() % 2500), "--wrap", "sleep " + (1 + op.c() % 6));
                jobs.add(Long.parseLong(out.strip().split(";")[0]));
            }
            case CANCEL -> {
                Long id = jobs.poll();
                if (id != null) {
                    harness.run("scancel", String.valueOf(id));
                }
            }
            case SYNC -> sync.sync("k-" + (1 + op.a() % NODES)).await().atMost(WAIT);
        }
    }
}
