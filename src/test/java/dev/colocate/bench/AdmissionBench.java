package dev.colocate.bench;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.copilot.GenericNodeStatuses;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.copilot.PodRequests;
import dev.colocate.copilot.Resources;
import dev.colocate.scheduler.Candidates;
import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.Filtering;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SchedulerStandIn;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import io.restassured.RestAssured;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The extender over HTTP against 100 shared nodes of real Slurm 22.05 in hold mode (salloc): bind latency over 1,000
 * pods, one by one and 16 in parallel, next to the floor measured in the same run (one immediate allocation plus one
 * API write, from the JVM and as bare salloc), and filter latency for 100 candidate nodes that run 3,000 pods between
 * them, next to a trivial endpoint of the same app. Run with {@code mvn -Pbench verify}; it prints figures and asserts no timing.
 */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "nodes", value = "102"), @ResourceArg(name = "cpus", value = "64"),
            @ResourceArg(name = "memoryMb", value = "256000")})
class AdmissionBench {

    static final int NODES = 100;
    static final int PODS = 1000;
    static final int RESIDENT = 3000;
    static final Duration WAIT = Duration.ofMinutes(3);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    @Inject
    MeterRegistry registry;

    @Inject
    Candidates candidates;

    /** p50/p99 of one verb as the server timed it (colocate_admission_seconds), without the HTTP client's share. */
    private String serverSide(String verb, String outcome) {
        var snapshot = registry.get("colocate.admission").tag("verb", verb).tag("outcome", outcome).timer()
                .takeSnapshot();
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%-50s %5d", verb + " (" + outcome
                + "), server side", snapshot.count()));
        for (var v : snapshot.percentileValues()) {
            out.append(String.format(Locale.ROOT, " %9.2f", v.value(TimeUnit.MILLISECONDS)));
        }
        return out.append(String.format(Locale.ROOT, " %9.2f", snapshot.mean(TimeUnit.MILLISECONDS))).toString();
    }


    /** Runs the task for 0..n-1 on the pool and returns the seconds it took. */
    private static double inParallel(java.util.concurrent.ExecutorService pool, int n,
            java.util.function.IntConsumer task) {
        long t0 = System.nanoTime();
        List<java.util.concurrent.Future<?>> futures = IntStream.range(0, n)
                .mapToObj(p -> pool.submit(() -> task.accept(p))).collect(java.util.stream.Collectors.toList());
        for (var f : futures) {
            try {
                f.get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    @Test
    void bindAndFilterLatency() {
        Crds.apply(client);
        List<String> names = IntStream.rangeClosed(1, NODES).mapToObj(i -> "k-" + i).toList();
        for (int i = 1; i <= NODES; i++) {
            client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("64", "256000Mi").obj())
                    .create();
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> names.stream().allMatch(n -> {
            GenericNode gn = client.resources(GenericNode.class).withName(n).get();
            return gn != null && gn.getStatus() != null
                    && Conditions.isTrue(gn.getStatus().getConditions(), GenericNodeStatuses.READY);
        }));

        // the nodes as a cluster has them: 30 running pods each (3,000), which filter counts on every candidate
        for (int p = 0; p < RESIDENT; p++) {
            client.resource(aPod("r" + p).on("k-" + (1 + p % NODES)).requesting("10m", "16Mi").obj()).create();
        }
        await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> names.stream().allMatch(n ->
                candidates.snapshot().apply(n) instanceof Filtering.Shared shared
                        && shared.ledger().kubernetes().milliCpu() == RESIDENT / NODES * 10));

        // filter, after a warm-up: over HTTP as kube-scheduler calls it (java.net.http, node names only), and the
        // decision alone, in process, as the resource computes it
        Pod probe = client.resource(aPod("probe").requesting("100m", "64Mi").obj()).create();
        SchedulerStandIn scheduler = new SchedulerStandIn(URI.create(RestAssured.baseURI + ":" + RestAssured.port));
        ExtenderArgs args = new ExtenderArgs(probe, null, names);
        Resources request = PodRequests.of(probe);
        for (int n = 0; n < 200; n++) {
            scheduler.filter(probe, names);
            Filtering.filter(args, request, candidates.snapshot());
        }
        long[] filter = new long[1000];
        long[] decide = new long[1000];
        // the floor: a trivial endpoint of the same app (liveness, no check of colocate's), over the same kind of
        // HTTP client, interleaved with the filters so that both see the same machine
        long[] trivial = new long[1000];
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpRequest live = java.net.http.HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":"
                + RestAssured.port + "/q/health/live")).build();
        for (int n = 0; n < 200; n++) {
            send(http, live);
        }
        // the filter request as kube-scheduler sends it, serialized once: its client's JSON work is not colocate's
        java.net.http.HttpRequest filterRequest = java.net.http.HttpRequest.newBuilder(URI.create(RestAssured.baseURI
                + ":" + RestAssured.port + "/scheduler/filter")).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(
                        io.fabric8.kubernetes.client.utils.Serialization.asJson(args))).build();
        for (int n = 0; n < 200; n++) {
            send(http, filterRequest);
        }
        for (int n = 0; n < filter.length; n++) {
            long t0 = System.nanoTime();
            send(http, filterRequest);
            long t1 = System.nanoTime();
            Filtering.filter(args, request, candidates.snapshot());
            decide[n] = System.nanoTime() - t1;
            filter[n] = t1 - t0;
            long t2 = System.nanoTime();
            send(http, live);
            trivial[n] = System.nanoTime() - t2;
        }

        long[] bind = new long[PODS];
        int refused = 0;
        for (int p = 0; p < PODS; p++) {
            Pod pod = client.resource(aPod("b" + p).requesting("100m", "64Mi").obj()).create();
            String node = names.get(p % NODES);
            long t0 = System.nanoTime();
            String error = scheduler.bind(pod, node);
            bind[p] = System.nanoTime() - t0;
            if (error != null) {
                refused++;
            }
        }

        // binds in parallel, as kube-scheduler's bind goroutines issue them: fresh nodes so that each pod needs a hold
        long[] parallel = new long[PODS];
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(16);
        java.util.concurrent.atomic.AtomicInteger parallelRefused = new java.util.concurrent.atomic.AtomicInteger();
        List<Pod> more = IntStream.range(0, PODS).mapToObj(p -> client.resource(aPod("c" + p)
                .requesting("1", "64Mi").obj()).create()).toList();
        long started = System.nanoTime();
        List<java.util.concurrent.Future<?>> futures = IntStream.range(0, PODS).mapToObj(p -> pool.submit(() -> {
            long t0 = System.nanoTime();
            if (scheduler.bind(more.get(p), names.get(p % NODES)) != null) {
                parallelRefused.incrementAndGet();
            }
            parallel[p] = System.nanoTime() - t0;
        })).collect(java.util.stream.Collectors.toList());
        for (var f : futures) {
            try {
                f.get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;

        // the parallel floor, in two halves measured the same way: the API calls a bind makes (GET pod, GET
        // GenericNode twice, the status patch, the Binding), 16 at a time with no Slurm call, and the immediate
        // allocations (each cancelled after, untimed in the figure's sense but inside the rate), with no API call
        double apiSeconds = inParallel(pool, PODS, p -> {
            String node = names.get(p % NODES);
            client.pods().withName("c" + p).get();
            client.resources(GenericNode.class).withName(node).get();
            client.resources(GenericNode.class).withName(node).get();
            client.resources(GenericNode.class).withName(node).subresource("status").patch(
                    io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                            io.fabric8.kubernetes.client.dsl.base.PatchType.JSON),
                    "[{\"op\":\"test\",\"path\":\"/metadata/name\",\"value\":\"" + node + "\"}]");
            client.bindings().resource(new io.fabric8.kubernetes.api.model.BindingBuilder().withNewMetadata()
                    .withName("floor-" + p).withNamespace("default").endMetadata().withNewTarget().withKind("Node")
                    .withName(node).endTarget().build()).create();
        });
        // (spread over the 100 nodes, as the binds are: a node whose last job Slurm is still completing refuses)
        double sallocSeconds = inParallel(pool, PODS, p -> slurm.cancel(slurm.grantHold(new HoldRequest(
                "node" + (1 + p % NODES), "k-101", 1, 64, true, "holds")).await().atMost(WAIT)).await().atMost(WAIT));
        pool.shutdown();

        // the floor from the JVM: what a hold-mode bind cannot avoid, one immediate allocation and one API write; on
        // two nodes in turn, since Slurm 22.05 at times refuses an immediate allocation ("Requested nodes are busy")
        // on a node whose last job it is still completing, a few milliseconds after the cancel
        SlurmHarness harness = SlurmHarness.ensure(new SlurmHarness.Shape(102, 64, 256000, false));
        long[] floor = new long[200];
        for (int n = 0; n < floor.length; n++) {
            long t0 = System.nanoTime();
            long hold;
            try {
                hold = slurm.grantHold(new HoldRequest("node" + (101 + n % 2), "k-101", 1, 64, true, "holds"))
                        .await().atMost(WAIT);
            } catch (RuntimeException e) {
                throw new IllegalStateException("floor hold " + n + " refused; node101 has: "
                        + harness.run("squeue", "-a", "-w", "node101", "-o", "%i %P %j %T %C %m %k %r")
                        + harness.run("scontrol", "show", "node", "node101"), e);
            }
            client.resource(aPod("floor-" + n).requesting("1m", "1Mi").obj()).create();
            floor[n] = System.nanoTime() - t0;
            slurm.cancel(hold).await().atMost(WAIT);
        }
        // and bare, from one shell, so that only salloc's own process start shows: 50 grants, each cancelled
        String bare = harness.run("bash", "-c", "for i in $(seq 50); do t0=$(date +%s%N); "
                + "salloc --no-shell --immediate --priority=TOP -p holds -w node$((101 + i % 2)) -N1 -n1 -c1 --mem=64 "
                + "--time=UNLIMITED -J colocate-hold --comment=colocate:k-101 --gres=k8scpu:1,k8smemory:64 "
                + "2>/tmp/salloc.err; t1=$(date +%s%N); echo $((t1 - t0)); "
                + "scancel $(sed -n 's/.*Granted job allocation //p' /tmp/salloc.err); done");
        long[] bareSalloc = bare.lines().filter(l -> !l.isBlank()).mapToLong(Long::parseLong).toArray();

        System.out.println();
        System.out.println("== extender in hold mode, Slurm 22.05.8 (salloc holds), 100 shared nodes ==");
        System.out.println(Percentiles.header());
        System.out.println(Percentiles.of("bind over HTTP (" + PODS + " pods, " + refused + " refused)", bind).row());
        System.out.println(Percentiles.of("bind, 16 in parallel (" + parallelRefused + " refused)", parallel).row());
        System.out.println(String.format(Locale.ROOT, "parallel binds: %d pods in %.2f s = %.1f pods/s", PODS,
                seconds, PODS / seconds));
        System.out.println(String.format(Locale.ROOT, "parallel floor, a bind's API calls alone: %.1f binds/s; "
                + "grantHold plus cancel alone: %.1f/s", PODS / apiSeconds, PODS / sallocSeconds));
        System.out.println(Percentiles.of("floor from the JVM: grantHold + one API write", floor).row());
        System.out.println(Percentiles.of("floor bare: salloc --immediate from bash", bareSalloc).row());
        System.out.println(Percentiles.of("filter over HTTP, 100 candidates, " + RESIDENT + " pods", filter).row());
        System.out.println(Percentiles.of("filter decision in process, same", decide).row());
        System.out.println(Percentiles.of("floor: GET /q/health/live over HTTP", trivial).row());
        System.out.println(serverSide("bind", "bound"));
    }

    private static void send(java.net.http.HttpClient http, java.net.http.HttpRequest request) {
        try {
            http.send(request, java.net.http.HttpResponse.BodyHandlers.discarding());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
