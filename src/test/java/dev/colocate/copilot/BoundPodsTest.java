package dev.colocate.copilot;

import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.Labels;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundPodsTest {

    private static Pod withUid(Pod pod, String uid) {
        pod.getMetadata().setUid(uid);
        return pod;
    }

    @Test
    void onlyThePodsThatHoldTheNodeCountAndAreKnownByUid() {
        List<Pod> onNode = List.of(
                withUid(aPod("web-0").on("node-a").requesting("1", "1Gi").obj(), "u-web-0"),
                withUid(aPod("agent").on("node-a").requesting("250m", "256Mi").obj(), "u-agent"),
                // finished: holds nothing
                withUid(aPod("job").on("node-a").phase("Succeeded").requesting("4", "4Gi").obj(), "u-job"),
                // the node's slurmd: its CPUs are Slurm's
                withUid(aPod("slurmd").on("node-a").labelled(Labels.COMPONENT, Labels.COMPONENT_SLURMD)
                        .requesting("2", "2Gi").obj(), "u-slurmd"),
                // bound elsewhere (an index that lagged)
                withUid(aPod("other").on("node-b").requesting("3", "3Gi").obj(), "u-other"));

        BoundPods bound = BoundPods.of("node-a", onNode);

        assertThat(bound.requests()).isEqualTo(new Resources(1250, (1024L + 256) * Resources.MIB));
        assertThat(bound.uids()).containsExactlyInAnyOrder("u-web-0", "u-agent");
    }

    @Test
    void aPodWithoutUidStillCounts() {
        BoundPods bound = BoundPods.of("node-a", List.of(withUid(aPod("web-0").on("node-a").requesting("1", "1Gi")
                .obj(), null)));

        assertThat(bound.requests()).isEqualTo(new Resources(1000, 1024L * Resources.MIB));
        assertThat(bound.uids()).isEmpty();
    }
}
