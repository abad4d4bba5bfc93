package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The packaged app alone (its own JVM, with the image's JVM options and -Xmx256m, as ColocateProcess starts it) serving 100 shared nodes of real Slurm
 * 22.05 in hold mode with 3,000 pods: time from the process start to ready, and its resident memory once every
 * GenericNode is Ready, next to the same jar with both roles off (the floor: Quarkus, fabric8 and the JVM alone).
 * Run with {@code mvn -Pbench verify}; it prints figures and asserts no timing.
 */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class FootprintBench {

    static final int NODES = 100;
    static final int PODS = 3000;
    static final Duration WAIT = Duration.ofMinutes(5);

    private record Run(double readySeconds, long rssKb, long peakKb) {
    }

    private static long status(long pid, String field) {
        try {
            return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
                    .filter(l -> l.startsWith(field + ":")).map(l -> l.replaceAll("\\D", "")).mapToLong(Long::parseLong)
                    .findFirst().orElse(-1);
        } catch (IOException e) {
            return -1;
        }
    }

    private static Run run(Map<String, String> config, Path log, KubernetesClient client, boolean converge) {
        HttpClient http = HttpClient.newHttpClient();
        long t0 = System.nanoTime();
        try (ColocateProcess colocate = ColocateProcess.start(config, log)) {
            HttpRequest ready = HttpRequest.newBuilder(colocate.uri().resolve("/q/health/ready")).build();
            await().atMost(WAIT).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).until(() -> {
                try {
                    return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
                } catch (IOException notYet) {
                    return false;
                }
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (converge) {
                await().atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> client.resources(GenericNode.class)
                        .list().getItems().stream().filter(gn -> gn.getStatus() != null
                                && Conditions.isTrue(gn.getStatus().getConditions(), "Ready")).count() == NODES);
            }
            // settle: the informers' initial lists and the first syncs' garbage are collectable by now
            await().pollDelay(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(11)).until(() -> true);
            if (converge) {
                System.out.println("FootprintBench heap:\n" + dev.colocate.testing.Commands.run(
                        java.util.List.of("jcmd", String.valueOf(colocate.pid()), "GC.heap_info"), Map.of(),
                        Duration.ofSeconds(60)));
                if (System.getProperty("colocate.process.jvm-options", "").contains("NativeMemoryTracking")) {
                    System.out.println("FootprintBench NMT:\n" + dev.colocate.testing.Commands.run(
                            java.util.List.of("jcmd", String.valueOf(colocate.pid()), "VM.native_memory", "summary"),
                            Map.of(), Duration.ofSeconds(60)));
                }
            }
            return new Run(seconds, status(colocate.pid(), "VmRSS"), status(colocate.pid(), "VmHWM"));
        }
    }

    @Test
    void readinessAndResidentMemoryWithAHundredNodesAndThreeThousandPods() {
        SlurmHarness slurm = SlurmHarness.ensure(SlurmHarness.Shape.single().withNodes(NODES));
        try (StandaloneApiServer api = new StandaloneApiServer(0)) {
            KubernetesClient client = api.client();
            for (int i = 1; i <= NODES; i++) {
                client.nodes().resource(aNode("k-" + i).sharedWith("node" + i).allocatable("8", "32000Mi").obj())
                        .create();
            }
            for (int p = 0; p < PODS; p++) {
                client.resource(aPod("p" + p).on("k-" + (1 + p % NODES)).requesting("10m", "16Mi").obj()).create();
            }
            Map<String, String> copilot = new HashMap<>(Map.of(
                    "kubernetes.master", api.url(),
                    "colocate.operator.enabled", "false",
                    "colocate.slurm.rest-url", slurm.restUrl(),
                    "colocate.slurm.jwt.key-file", slurm.jwtKey().toString(),
                    "colocate.slurm.scontrol.slurm-conf", slurm.slurmConf().toString()));
            Map<String, String> idle = Map.of("kubernetes.master", api.url(), "colocate.operator.enabled", "false",
                    "colocate.copilot.enabled", "false", "colocate.slurm.enabled", "false");
            // the API server's own part: how long the stand-in takes to answer the lists colocate makes at start,
            // asked by a warm client in this JVM (best of three)
            long listMs = Long.MAX_VALUE;
            for (int i = 0; i < 3; i++) {
                long t = System.nanoTime();
                client.pods().inAnyNamespace().list();
                client.nodes().list();
                listMs = Math.min(listMs, (System.nanoTime() - t) / 1_000_000);
            }
            Path log = Path.of("target", "footprint-bench.log");
            Run floor = run(idle, log, client, false);
            Run cold = run(copilot, log, client, true);
            // a restart finds the holds it made: the case of an upgrade, or a pod moved
            Run warm = run(copilot, log, client, true);
            Run floorAgain = run(idle, log, client, false);
            System.out.println();
            System.out.println("== packaged app (JVM " + dev.colocate.testing.ColocateProcess.jvmOptions()
                    + "), Slurm 22.05.8 hold mode, " + NODES + " shared nodes, "
                    + PODS + " pods ==");
            for (var e : Map.of("1 floor: both roles off", floor, "2 copilot, first start (makes 100 holds)", cold,
                    "3 copilot, restart (adopts the holds)", warm, "4 floor again", floorAgain)
                    .entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
                System.out.println(String.format(Locale.ROOT, "%-45s ready after %.2f s, RSS %.1f MiB, peak RSS %.1f MiB",
                        e.getKey(), e.getValue().readySeconds(), e.getValue().rssKb() / 1024.0,
                        e.getValue().peakKb() / 1024.0));
            }
            System.out.println("the API server stand-in lists " + PODS + " pods and " + NODES + " nodes in " + listMs
                    + " ms to a warm client (part of every start above)");
            System.out.println();
        } finally {
            slurm.run("scancel", "-p", "holds");
        }
    }
}
