package dev.colocate.operator.model;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ScaleInTest {

    private static final ScaleIn.NodeState IDLE = new ScaleIn.NodeState(false, null, 0);
    private static final ScaleIn.NodeState BUSY = new ScaleIn.NodeState(false, null, 1);
    private static final ScaleIn.NodeState DRAINING = new ScaleIn.NodeState(true, ScaleIn.REASON, 2);
    private static final ScaleIn.NodeState DRAINED = new ScaleIn.NodeState(true, ScaleIn.REASON, 0);

    private static SlurmCluster cpu(int replicas) {
        return aCluster("demo").withGroup("cpu", replicas, "4", "8Gi").obj();
    }

    private static Map<String, ScaleIn.Running> running(String group, int replicas) {
        return Map.of(group, new ScaleIn.Running(replicas, cpu(replicas).getSpec().getWorkerGroupSpecs().get(0)));
    }

    private static Map<String, Integer> replicas(ScaleIn.Plan plan) {
        return plan.effective().getSpec().getWorkerGroupSpecs().stream()
                .collect(Collectors.toMap(WorkerGroupSpec::getGroupName, WorkerGroupSpec::getReplicas));
    }

    @Test
    void aShrinkDrainsTheLeavingNodesAndKeepsThemWhileTheyRunJobs() {
        ScaleIn.Plan plan = ScaleIn.plan(cpu(1), running("cpu", 3), Map.of("demo-worker-cpu-0", BUSY,
                "demo-worker-cpu-1", BUSY, "demo-worker-cpu-2", IDLE), null);

        assertThat(plan.drain()).containsExactlyInAnyOrder("demo-worker-cpu-1", "demo-worker-cpu-2");
        assertThat(replicas(plan)).isEqualTo(Map.of("cpu", 3));
        assertThat(plan.waiting()).containsExactly("cpu: draining demo-worker-cpu-1 (1 job), demo-worker-cpu-2 (0 jobs)");
    }

    @Test
    void nodesGoFromTheTopAsSoonAsTheyAreDrainedAndIdle() {
        // the StatefulSet removes the highest ordinals first: node 2 may go while node 1 still runs a job
        ScaleIn.Plan partly = ScaleIn.plan(cpu(1), running("cpu", 3), Map.of("demo-worker-cpu-1", DRAINING,
                "demo-worker-cpu-2", DRAINED), null);
        assertThat(replicas(partly)).isEqualTo(Map.of("cpu", 2));
        assertThat(partly.drain()).isEmpty();
        assertThat(partly.waiting()).containsExactly("cpu: draining demo-worker-cpu-1 (2 jobs)");

        ScaleIn.Plan done = ScaleIn.plan(cpu(1), running("cpu", 2), Map.of("demo-worker-cpu-1", DRAINED), null);
        assertThat(replicas(done)).isEqualTo(Map.of("cpu", 1));
        assertThat(done.settled()).isTrue();
    }

    @Test
    void aNodeSlurmDoesNotKnowHasNothingToDrain() {
        ScaleIn.Plan plan = ScaleIn.plan(cpu(1), running("cpu", 2), Map.of(), null);
        assertThat(replicas(plan)).isEqualTo(Map.of("cpu", 1));
        assertThat(plan.settled()).isTrue();
    }

    @Test
    void withoutSlurmNothingLeaves() {
        ScaleIn.Plan plan = ScaleIn.plan(cpu(1), running("cpu", 2), Map.of("demo-worker-cpu-1", DRAINED),
                "slurmrestd unreachable");
        assertThat(replicas(plan)).isEqualTo(Map.of("cpu", 2));
        assertThat(plan.drain()).isEmpty();
        assertThat(plan.waiting()).containsExactly("cpu: cannot drain demo-worker-cpu-1 (0 jobs) before removing "
                + "them: slurmrestd unreachable");
    }

    @Test
    void aRemovedGroupStaysRenderedFromItsStatefulSetUntilItsNodesAreFree() {
        SlurmCluster noGroups = aCluster("demo").obj();
        ScaleIn.Plan plan = ScaleIn.plan(noGroups, running("cpu", 1), Map.of("demo-worker-cpu-0", BUSY), null);
        assertThat(plan.drain()).containsExactly("demo-worker-cpu-0");
        assertThat(replicas(plan)).isEqualTo(Map.of("cpu", 1));
        assertThat(plan.effective().getSpec().getWorkerGroupSpecs().get(0).getResources())
                .isEqualTo(cpu(1).getSpec().getWorkerGroupSpecs().get(0).getResources());
        assertThat(noGroups.getSpec().getWorkerGroupSpecs()).as("the spec itself is left alone").isEmpty();

        ScaleIn.Plan done = ScaleIn.plan(noGroups, running("cpu", 1), Map.of("demo-worker-cpu-0", DRAINED), null);
        assertThat(replicas(done)).isEmpty();
    }

    @Test
    void scalingBackUpResumesWhatAScaleInDrainedAndLeavesAnAdminsDrainAlone() {
        ScaleIn.Plan plan = ScaleIn.plan(cpu(3), running("cpu", 3), Map.of("demo-worker-cpu-1", DRAINING,
                "demo-worker-cpu-2", new ScaleIn.NodeState(true, "bad DIMM", 0)), null);
        assertThat(plan.resume()).containsExactly("demo-worker-cpu-1");
        assertThat(plan.drain()).isEmpty();
        assertThat(replicas(plan)).isEqualTo(Map.of("cpu", 3));
    }

    @Test
    void onlyFewerNodesThanRunCountAsAShrink() {
        assertThat(ScaleIn.shrinks(cpu(2), running("cpu", 3))).isTrue();
        assertThat(ScaleIn.shrinks(cpu(3), running("cpu", 3))).isFalse();
        assertThat(ScaleIn.shrinks(cpu(4), running("cpu", 3))).isFalse();
        assertThat(ScaleIn.shrinks(aCluster("demo").obj(), running("cpu", 1))).isTrue();
        assertThat(ScaleIn.shrinks(aCluster("demo").obj(), running("cpu", 0))).isFalse();
        assertThat(ScaleIn.shrinks(cpu(1), Map.of())).isFalse();
    }
}
