package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link SlurmControl} against a real Slurm 22.05 node (8 CPUs, 32000 MB): reads over REST, node writes and releases
 * through a local scontrol, since slurmrestd v0.0.38 cannot update nodes.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true)
class SlurmControlContractIT {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String NODE = "node1";

    @Inject
    SlurmControl slurm;

    @Inject
    CompositeSlurmControl composite;

    private final List<Long> submitted = new ArrayList<>();

    private static <T> T get(io.smallrye.mutiny.Uni<T> uni) {
        return uni.await().atMost(WAIT);
    }

    @BeforeEach
    void fullShare() {
        get(slurm.setKubernetesShare(NODE, 8, 32000));
    }

    @AfterEach
    void cancelJobsAndRestoreShare() {
        submitted.forEach(id -> get(slurm.cancel(id)));
        await().atMost(WAIT).until(() -> get(slurm.jobs()).stream().noneMatch(j -> SlurmJob.ACTIVE.contains(j.state())));
        get(slurm.setKubernetesShare(NODE, 8, 32000));
    }

    private long submit(String name, int cpus, long memoryMb) {
        long id = get(slurm.submit(JobSpec.sleep(name, 300, cpus, memoryMb)
                .withGres("k8scpu:" + cpus + ",k8smemory:" + memoryMb)));
        submitted.add(id);
        return id;
    }

    private SlurmJob job(long id) {
        return get(slurm.jobs()).stream().filter(j -> j.id() == id).findFirst()
                .orElseThrow(() -> new AssertionError("Slurm does not know job " + id));
    }

    private void awaitRunning(long id) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(job(id)).extracting(SlurmJob::state).isEqualTo("RUNNING"));
    }

    @Test
    void pingNamesTheReleaseAndWhenSlurmctldStarted() {
        ControllerPing ping = get(slurm.ping());

        assertThat(ping.up()).isTrue();
        assertThat(ping.release()).isEqualTo("22.05.8");
        assertThat(ping.startedAt()).isAfter(Instant.now().minus(Duration.ofDays(1))).isBefore(Instant.now());
    }

    @Test
    void theNodeIsListedWithItsCpusMemoryAndGres() {
        SlurmNode node = get(slurm.node(NODE));

        assertThat(node.cpus()).isEqualTo(8);
        assertThat(node.realMemoryMb()).isEqualTo(32000);
        assertThat(node.gres(SlurmNode.K8S_CPU)).isEqualTo(8);
        assertThat(node.gres(SlurmNode.K8S_MEMORY)).isEqualTo(32000);
        assertThat(get(slurm.nodes())).extracting(SlurmNode::name).containsExactly(NODE);
        assertThatThrownBy(() -> get(slurm.node("nosuchnode")))
                .isInstanceOf(SlurmNotFoundException.class).hasMessageContaining("nosuchnode");
    }

    @Test
    void onSlurm2205NodeWritesGoThroughScontrol() {
        assertThat(get(composite.writer())).isInstanceOf(dev.colocate.slurm.scontrol.ScontrolNodeWriter.class);
    }

    @Test
    void lowersTheShareWhileAJobRunsWithoutDisturbingIt() {
        long id = submit("runs-through", 2, 2000);
        awaitRunning(id);

        get(slurm.setKubernetesShare(NODE, 5, 12000));

        SlurmNode node = get(slurm.node(NODE));
        assertThat(node.gres()).containsEntry("k8scpu", 5L).containsEntry("k8smemory", 12000L);
        assertThat(node.gresUsed()).containsEntry("k8scpu", 2L).containsEntry("k8smemory", 2000L);
        assertThat(job(id).isRunning()).isTrue();
        assertThat(get(slurm.jobsOn(NODE))).extracting(SlurmJob::id).contains(id);
    }

    @Test
    void aJobPendsOnResourcesOnceTheShareLeavesTooLittle() {
        get(slurm.setKubernetesShare(NODE, 3, 32000));
        long first = submit("fits", 2, 1000);
        awaitRunning(first);

        long second = submit("waits", 2, 1000);

        await().atMost(WAIT).untilAsserted(() -> {
            SlurmJob waiting = job(second);
            assertThat(waiting.isPending()).isTrue();
            assertThat(waiting.reason()).isEqualTo("Resources");
        });
        get(slurm.setKubernetesShare(NODE, 8, 32000));
        awaitRunning(second);
    }

    @Test
    void aJobHeldByALoweredShareStaysHeldUntilReleased() {
        long big = submit("big", 6, 1000);
        awaitRunning(big);
        long pending = submit("needs-4", 4, 1000);
        await().atMost(WAIT).until(() -> "Resources".equals(job(pending).reason()));

        // 4 > the new total of 3: Slurm marks the pending job BadConstraints and holds it (priority 0)
        get(slurm.setKubernetesShare(NODE, 3, 32000));
        await().atMost(WAIT).untilAsserted(() ->
                assertThat(get(slurm.heldJobs("BadConstraints"))).extracting(SlurmJob::id).contains(pending));

        get(slurm.setKubernetesShare(NODE, 8, 32000));
        get(slurm.cancel(big));
        submitted.remove(big);
        await().pollDelay(Duration.ofSeconds(2)).atMost(WAIT).untilAsserted(() ->
                assertThat(job(pending).isPending()).as("still held after the count is raised").isTrue());

        get(slurm.release(List.of(pending)));
        awaitRunning(pending);
    }

    @Test
    void cancellingAnEndedJobIsNotAnError() {
        long id = submit("short", 1, 100);
        get(slurm.cancel(id));
        await().atMost(WAIT).until(() -> get(slurm.jobsOn(NODE)).stream().noneMatch(j -> j.id() == id));

        get(slurm.cancel(id));
        submitted.remove(id);
    }

    @Test
    void aNodeNameThatIsNotOneNeverReachesScontrol() {
        assertThatThrownBy(() -> get(slurm.setKubernetesShare("node1 State=DOWN", 1, 1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(get(slurm.node(NODE)).is("DOWN")).isFalse();
    }

    @Test
    void everyCallIsTimedByOperationAndOutcome() {
        get(slurm.nodes());
        get(slurm.setKubernetesShare(NODE, 8, 32000));
        assertThatThrownBy(() -> get(slurm.node("nosuchnode"))).isInstanceOf(SlurmNotFoundException.class);

        String metrics = io.restassured.RestAssured.given().accept("text/plain").get("/q/metrics").asString();
        assertThat(metrics)
                .containsPattern("colocate_slurm_requests_seconds_count\\{operation=\"nodes\",outcome=\"success\",?}")
                .containsPattern(
                        "colocate_slurm_requests_seconds_count\\{operation=\"setKubernetesShare\",outcome=\"success\",?}")
                .doesNotContain("node1)");
    }

    @Test
    void aStoppedSlurmrestdIsAnOutageAndTheNextCallAfterItsReturnWorks() {
        SlurmHarness harness = SlurmHarness.ensure(SlurmHarness.Shape.single());
        harness.stop("slurmrestd");
        try {
            assertThatThrownBy(() -> get(slurm.nodes()))
                    .isInstanceOf(SlurmUnavailableException.class)
                    .hasMessageContaining("unreachable");
        } finally {
            harness.up();
        }
        assertThat(get(slurm.nodes())).extracting(SlurmNode::name).containsExactly(NODE);
    }
}
