package dev.colocate.scheduler;

import static dev.colocate.scheduler.FitTest.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.copilot.Ledger;
import dev.colocate.copilot.Resources;
import dev.colocate.scheduler.ExtenderTypes.ExtenderArgs;
import dev.colocate.scheduler.ExtenderTypes.ExtenderFilterResult;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import dev.colocate.scheduler.Filtering.Candidate;
import dev.colocate.scheduler.Filtering.NotShared;
import dev.colocate.scheduler.Filtering.Shared;
import dev.colocate.scheduler.Filtering.Unknown;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class FilteringTest {

    static final Map<String, Candidate> KNOWN = Map.of(
            "busy", new Shared(FitTest.WALKTHROUGH),
            "quiet", new Shared(Ledger.compute(res("8", "32Gi"), res("500m", "1Gi"), Resources.ZERO)),
            "plain", new NotShared(),
            "dark", new Unknown("Slurm is unreachable: connection refused"));
    static final Function<String, Candidate> LOOKUP = KNOWN::get;
    static final Resources THREE_CPU = res("3", "1Gi");

    @Test
    void byNameKeepsWhatFitsAndWhatIsNotSharedAndSaysWhyForTheRest() {
        ExtenderArgs args = new ExtenderArgs(null, null, List.of("busy", "quiet", "plain", "dark"));

        ExtenderFilterResult result = Filtering.filter(args, THREE_CPU, LOOKUP);

        assertThat(result.nodeNames()).containsExactly("quiet", "plain");
        assertThat(result.nodes()).isNull();
        assertThat(result.failedNodes())
                .isEqualTo(Map.of("busy", "Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8"));
        assertThat(result.failedAndUnresolvableNodes())
                .isEqualTo(Map.of("dark", "Slurm is unreachable: connection refused"));
    }

    @Test
    void byObjectAnswersWithTheNodeObjectsThatPass() {
        NodeList nodes = new NodeList();
        nodes.setItems(List.of(node("busy"), node("quiet"), node("plain")));
        ExtenderArgs args = new ExtenderArgs(null, nodes, null);

        ExtenderFilterResult result = Filtering.filter(args, THREE_CPU, LOOKUP);

        assertThat(result.nodeNames()).isNull();
        assertThat(result.nodes().getItems()).extracting(n -> n.getMetadata().getName())
                .containsExactly("quiet", "plain");
        assertThat(result.failedNodes()).containsOnlyKeys("busy");
    }

    @Test
    void aSmallPodPassesEverySharedNodeThatHasRoom() {
        ExtenderArgs args = new ExtenderArgs(null, null, List.of("busy", "quiet"));

        ExtenderFilterResult result = Filtering.filter(args, res("100m", "64Mi"), LOOKUP);

        assertThat(result.nodeNames()).containsExactly("busy", "quiet");
        assertThat(result.failedNodes()).isEmpty();
    }

    @Test
    void prioritizeRanksBySlurmsFreeWholeCpusAndGivesUnjudgedNodesNothing() {
        ExtenderArgs args = new ExtenderArgs(null, null, List.of("busy", "quiet", "plain", "dark"));

        List<HostPriority> scores = Filtering.prioritize(args, res("1500m", "1Gi"), LOOKUP);

        // busy: floor(8 - 4.235) = 3 CPUs left to Slurm, all held by its 3-CPU job; quiet: floor(8 - 2) = 6 of 8 free
        assertThat(scores).containsExactly(new HostPriority("busy", 0), new HostPriority("quiet", 7),
                new HostPriority("plain", HostPriority.MAX_SCORE), new HostPriority("dark", 0));
    }

    private static Node node(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }
}
