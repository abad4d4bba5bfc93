package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real slurmd (Slurm 22.05) restarted while a job holds k8scpu/k8smemory whose counts the copilot changed: Slurm
 * drains the node with INVALID_REG, and the copilot brings it back without the job ever stopping, and without
 * letting Slurm take what Kubernetes holds while it does.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "shareMode", value = "gres"))
class InvalidRegistrationIT {

    static final Duration WAIT = Duration.ofSeconds(60);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    private SlurmNode node1() {
        return slurm.node("node1").await().atMost(WAIT);
    }

    private void countsAre(long cpu, long memoryMb) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(node1().gres())
                .containsEntry("k8scpu", cpu).containsEntry("k8smemory", memoryMb));
    }

    private GenericNode genericNode() {
        return client.resources(GenericNode.class).withName("k-1").get();
    }

    private boolean jobRuns(long id) {
        return slurm.jobs().await().atMost(WAIT).stream().anyMatch(j -> j.id() == id && j.isRunning());
    }

    private long eventCount(String reason) {
        return client.v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> "k-1".equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
                .count();
    }

    @Test
    void aNodeDrainedForACountChangeComesBackWithItsJobRunning() {
        SlurmHarness harness = SlurmHarness.ensure(SlurmHarness.Shape.single());
        Crds.apply(client);
        client.nodes().resource(aNode("k-1").sharedWith("node1").allocatable("8", "32000Mi").obj()).create();
        client.resource(aPod("a").on("k-1").requesting("1", "1Gi").obj()).create();
        countsAre(7, 32000 - 1024);
        // with no job on the node, its registration makes 7/30976 the counts Slurm compares later ones with
        harness.restartSlurmd("node1");
        await().atMost(WAIT).until(() -> !node1().is("DRAIN"));

        long job = Long.parseLong(harness.run("sbatch", "--parsable", "-o", "/dev/null", "-w", "node1",
                "--cpus-per-task=2", "--mem=2000", "--gres=k8scpu:2,k8smemory:2000", "--wrap", "sleep 600")
                .strip().split(";")[0]);
        try {
            await().atMost(WAIT).until(() -> jobRuns(job));
            client.resource(aPod("b").on("k-1").requesting("1", "1Gi").obj()).create();
            countsAre(6, 32000 - 2048);

            // slurmd registers 6 while the job holds the GRES: "count changed and jobs are using them (7 != 6)"
            harness.restartSlurmd("node1");

            // the copilot restores 7 and 30976 and makes slurmd register again; Slurm accepts, the node stays
            // drained because resuming at 7 would hand Slurm a CPU pod b holds
            await().atMost(WAIT).untilAsserted(() -> {
                SlurmNode n = node1();
                assertThat(n.state()).contains("DRAIN").doesNotContain("INVALID_REG");
                assertThat(n.gres()).containsEntry("k8scpu", 7L).containsEntry("k8smemory", 32000L - 1024);
                var ready = Conditions.find(genericNode().getStatus().getConditions(), GenericNodeStatuses.READY);
                assertThat(ready.getStatus()).isEqualTo("False");
                assertThat(ready.getReason()).isEqualTo("SlurmNodeDrained");
                assertThat(ready.getMessage()).contains("count changed and jobs are using them")
                        .contains("kept drained");
            });
            assertThat(jobRuns(job)).isTrue();
            assertThat(eventCount("InvalidRegistration")).isPositive();

            // Kubernetes frees the CPU: resuming at the registered counts is safe now
            client.pods().inNamespace("default").withName("b").delete();
            await().atMost(WAIT).untilAsserted(() -> {
                SlurmNode n = node1();
                assertThat(n.state()).doesNotContain("DRAIN").doesNotContain("INVALID_REG");
                assertThat(n.gres()).containsEntry("k8scpu", 7L).containsEntry("k8smemory", 32000L - 1024);
                assertThat(Conditions.isTrue(genericNode().getStatus().getConditions(), GenericNodeStatuses.READY))
                        .isTrue();
            });
            assertThat(jobRuns(job)).isTrue();
            assertThat(eventCount("SlurmNodeResumed")).isEqualTo(1);

            // again, but this time the job ends while the node is held: the share is written, then it resumes
            client.resource(aPod("c").on("k-1").requesting("1", "1Gi").obj()).create();
            countsAre(6, 32000 - 2048);
            harness.restartSlurmd("node1");
            await().atMost(WAIT).untilAsserted(() -> assertThat(genericNode().getStatus().getConditions())
                    .anySatisfy(c -> assertThat(c.getMessage()).contains("kept drained")));
            assertThat(jobRuns(job)).isTrue();
        } finally {
            slurm.cancel(job).await().atMost(WAIT);
        }
        await().atMost(WAIT).untilAsserted(() -> {
            SlurmNode n = node1();
            assertThat(n.state()).doesNotContain("DRAIN").doesNotContain("INVALID_REG");
            assertThat(n.gres()).containsEntry("k8scpu", 6L).containsEntry("k8smemory", 32000L - 2048);
        });
        // and the registration that followed the resume accepted 6: another restart leaves the node alone
        harness.restartSlurmd("node1");
        await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> !node1().is("DRAIN"));
    }
}
