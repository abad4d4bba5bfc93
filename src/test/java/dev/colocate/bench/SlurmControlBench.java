package dev.colocate.bench;

import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmTokens;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What SlurmControl costs over a bare HTTP call to the same slurmrestd endpoint, on 100 real Slurm 24.11 nodes.
 * Run with {@code mvn -Pbench verify}; it prints figures and asserts no timing.
 */
@QuarkusTest
@Tag("bench")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true, initArgs = {
    @ResourceArg(name = "release", value = "24.11"), @ResourceArg(name = "nodes", value = "100")})
class SlurmControlBench {

    static final int WARMUP = 30;
    static final int SAMPLES = 300;

    @Inject
    SlurmControl slurm;

    @Inject
    SlurmTokens tokens;

    @ConfigProperty(name = "colocate.slurm.rest-url")
    String restUrl;

    // HTTP/1.1 only: the JDK client's h2c upgrade request confuses slurmrestd's header parser
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpRequest.Builder bare(String path) {
        return HttpRequest.newBuilder(URI.create(restUrl + "/slurm/v0.0.42" + path))
                .header("X-SLURM-USER-NAME", tokens.user())
                .header("X-SLURM-USER-TOKEN", tokens.token())
                .timeout(Duration.ofSeconds(10));
    }

    private String send(HttpRequest request) throws Exception {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static long[] measure(Callable<?> call) throws Exception {
        for (int i = 0; i < WARMUP; i++) {
            call.call();
        }
        long[] nanos = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            long t0 = System.nanoTime();
            call.call();
            nanos[i] = System.nanoTime() - t0;
        }
        return nanos;
    }

    @Test
    void nodesAndShareWritesAgainstBareHttp() throws Exception {
        List<SlurmNode> nodes = slurm.nodes().await().atMost(Duration.ofSeconds(30));
        if (nodes.size() != 100) {
            throw new IllegalStateException("expected 100 nodes, Slurm lists " + nodes.size());
        }
        int[] flip = {0};
        Percentiles nodesControl = Percentiles.of("SlurmControl.nodes() (100 nodes, parsed)",
                measure(() -> slurm.nodes().await().atMost(Duration.ofSeconds(30))));
        Percentiles nodesBare = Percentiles.of("bare GET /nodes (body read, not parsed)",
                measure(() -> send(bare("/nodes").GET().build())));
        Percentiles shareControl = Percentiles.of("SlurmControl.setKubernetesShare (REST)",
                measure(() -> slurm.setKubernetesShare("node1", 4 + (flip[0]++ % 2), 12000)
                        .await().atMost(Duration.ofSeconds(30))));
        Percentiles shareBare = Percentiles.of("bare POST /node/node1 {gres}",
                measure(() -> send(bare("/node/node1").header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"gres\":\"k8scpu:" + (4 + (flip[0]++ % 2)) + ",k8smemory:12000\"}"))
                        .build())));

        System.out.println();
        System.out.println("== SlurmControl vs bare HTTP, Slurm 24.11.5, slurmrestd v0.0.42, 100 nodes, loopback ==");
        System.out.println(Percentiles.header());
        for (Percentiles p : List.of(nodesControl, nodesBare, shareControl, shareBare)) {
            System.out.println(p.row());
        }
        System.out.println();
    }
}
