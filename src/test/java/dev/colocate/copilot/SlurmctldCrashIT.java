package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A slurmctld crash that loses the holds it had not saved yet (Slurm saves its job state a few seconds after a change):
 * the copilot sees slurmctld restart, lists the holds Slurm really has, and makes the lost ones again at once. The
 * resync that would also notice is ten minutes away here, so only the restart handling can pass this test.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "jobSubmitLua", value = "true"),
            @ResourceArg(name = "resyncInterval", value = "10m")})
class SlurmctldCrashIT {

    static final Duration WAIT = Duration.ofSeconds(45);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    private List<SlurmHold> granted(String node) {
        return slurm.holds("holds").await().atMost(WAIT).stream()
                .filter(h -> h.running() && h.kubernetesNode().equals(node)).toList();
    }

    @Test
    void holdsTheCrashLostAreMadeAgainRightAfterSlurmctldRestarts() {
        crashLosingTheHolds("node-a", () -> { });
    }

    /**
     * The copilot polls while slurmctld is down, and sees it back with a new start time only after an unreachable
     * poll: that is a restart too.
     */
    @Test
    void holdsLostInACrashAreMadeAgainWhenTheCopilotSawSlurmctldDownMeanwhile() {
        crashLosingTheHolds("node-b", () -> await().atMost(WAIT).untilAsserted(() -> assertThat(Conditions.isTrue(
                client.resources(GenericNode.class).withName("node-b").get().getStatus().getConditions(),
                GenericNodeStatuses.SLURM_REACHABLE)).as("Slurm reachable for node-b").isFalse()));
    }

    /**
     * Each scene has its own Kubernetes node: the state a crash restores may still hold what an earlier scene's end
     * cancelled (Slurm saves a few seconds after a change), and a hold of that scene's node must not pass for this one.
     * The copilot cancels such a hold at once, its node being no longer shared.
     */
    private void crashLosingTheHolds(String node, Runnable whileDown) {
        SlurmHarness harness = SlurmHarness.ensure(new SlurmHarness.Shape(1, 8, 32000, true));
        Crds.apply(client);
        client.nodes().resource(aNode(node).sharedWith("node1").allocatable("8", "32000Mi").obj()).create();
        await().atMost(WAIT).until(() -> {
            GenericNode gn = client.resources(GenericNode.class).withName(node).get();
            return gn != null && gn.getStatus() != null && Conditions.isTrue(gn.getStatus().getConditions(), "Ready");
        });
        // what slurmctld has saved before Kubernetes takes anything
        Path saved = harness.snapshotState();

        client.resource(aPod("web-0").on(node).requesting("3", "3Gi").obj()).create();
        await().atMost(WAIT).untilAsserted(() -> assertThat(granted(node).stream().mapToLong(SlurmHold::cpus).sum())
                .isGreaterThanOrEqualTo(3));

        harness.killSlurmctldLosingStateSince(saved, whileDown);

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
            List<SlurmHold> held = granted(node);
            assertThat(held.stream().mapToLong(SlurmHold::cpus).sum()).as("%s", held).isGreaterThanOrEqualTo(3);
            assertThat(held.stream().mapToLong(SlurmHold::memoryMb).sum()).isGreaterThanOrEqualTo(3072);
            assertThat(slurm.node("node1").await().atMost(WAIT).state()).doesNotContain("DRAIN", "INVALID_REG");
        });
        client.pods().inAnyNamespace().delete();
        client.nodes().withName(node).delete();
        await().atMost(WAIT).until(() -> slurm.holds("holds").await().atMost(WAIT).isEmpty()
                && client.resources(GenericNode.class).withName(node).get() == null);
    }
}
