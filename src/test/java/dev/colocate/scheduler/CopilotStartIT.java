package dev.colocate.scheduler;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.StandaloneApiServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The packaged copilot while its caches load: the API server's list of pods is left unanswered, as on a big cluster
 * or a slow API server. colocate must serve liveness meanwhile (a kubelet would otherwise restart it before it ever
 * loads), say in readiness that it is starting, and refuse extender calls rather than judge pods against empty books.
 * (A {@code @QuarkusTest} only so that Quarkus stops any application an earlier class left running, as in
 * {@link CopilotRestartIT}.)
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
@TestProfile(CopilotRestartIT.Bystander.class)
class CopilotStartIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final Path LOG = Path.of("target", "copilot-start-it.log");

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(ColocateProcess colocate, String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(colocate.uri().resolve(path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> filter(ColocateProcess colocate, Pod pod) throws IOException, InterruptedException {
        String args = Serialization.asJson(Map.of("Pod", pod, "NodeNames", List.of("k-1")));
        return http.send(HttpRequest.newBuilder(colocate.uri().resolve("/scheduler/filter"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(args)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void whileItsCachesLoadTheCopilotIsLiveButNotReadyAndRefusesExtenderCalls() throws Exception {
        try (StandaloneApiServer api = new StandaloneApiServer(0)) {
            api.client().nodes().resource(aNode("k-1").allocatable("8", "32Gi").obj()).create();
            Pod pod = api.client().resource(aPod("web-0").requesting("1", "1Gi").obj()).create();
            Map<String, String> config = Map.of("kubernetes.master", api.url(),
                    "colocate.operator.enabled", "false", "colocate.slurm.enabled", "false");
            // the informer's list of pods (not its watch) hangs
            try (StandaloneApiServer.Stall stall = api.stall(r -> r.getPath().startsWith("/api/v1/pods")
                    && !r.getPath().contains("watch=true"));
                    ColocateProcess colocate = ColocateProcess.start(config, LOG)) {
                await().atMost(WAIT).until(stall::hit);
                colocate.awaitLive(WAIT);

                HttpResponse<String> ready = get(colocate, "/q/health/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).containsPattern("\"state\"\\s*:\\s*\"starting\"");
                HttpResponse<String> refused = filter(colocate, pod);
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(refused.body()).contains("this copilot is starting");

                // the API server answers again: the informer lists anew, and the copilot serves
                stall.close();
                colocate.awaitReady(WAIT);
                assertThat(get(colocate, "/q/health/ready").body()).containsPattern("\"state\"\\s*:\\s*\"serving\"");
                HttpResponse<String> judged = filter(colocate, pod);
                assertThat(judged.statusCode()).isEqualTo(200);
                assertThat(judged.body()).containsPattern("\"NodeNames\"\\s*:\\s*\\[\"k-1\"]");
            }
        }
    }

    @Test
    void untilEachSharedNodeIsSyncedOnceTheCopilotIsNotReadyAndSaysWhichNodesAreLeft() throws Exception {
        try (StandaloneApiServer api = new StandaloneApiServer(0)) {
            api.client().nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "32Gi").obj()).create();
            Pod pod = api.client().resource(aPod("web-0").requesting("1", "1Gi").obj()).create();
            Map<String, String> config = Map.of("kubernetes.master", api.url(),
                    "colocate.operator.enabled", "false", "colocate.slurm.enabled", "false");
            // the first sync of k-1 creates its GenericNode: that write hangs
            try (StandaloneApiServer.Stall stall = api.stall(r -> "POST".equals(r.getMethod())
                    && r.getPath().startsWith("/apis/colocate.dev/v1alpha1/genericnodes"));
                    ColocateProcess colocate = ColocateProcess.start(config, LOG)) {
                await().atMost(WAIT).until(stall::hit);
                // the caches are loaded by the time a sync runs: only the sync is awaited
                await().atMost(WAIT).untilAsserted(() -> assertThat(get(colocate, "/q/health/ready").body())
                        .containsPattern("\"state\"\\s*:\\s*\"syncing\"")
                        .contains("1 shared node(s): k-1"));
                assertThat(get(colocate, "/q/health/ready").statusCode()).isEqualTo(503);
                HttpResponse<String> refused = filter(colocate, pod);
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(refused.body()).contains("it has not synced 1 shared node(s): k-1 yet");

                // the write times out and the sync fails, saying why: the node has been synced once, and the
                // copilot serves; a later sync creates the GenericNode
                stall.close();
                colocate.awaitReady(WAIT);
                await().atMost(WAIT).until(() -> api.client().resources(dev.colocate.api.GenericNode.class)
                        .withName("k-1").get() != null);
            }
        }
    }
}
