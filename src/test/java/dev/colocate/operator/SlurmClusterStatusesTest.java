package dev.colocate.operator;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.Conditions;
import dev.colocate.operator.model.ScaleIn;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.SlurmClusterStatus;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SlurmClusterStatusesTest {

    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");

    private static StatefulSet sts(int replicas, int ready, long generation, long observed) {
        return new StatefulSetBuilder().withNewMetadata().withGeneration(generation).endMetadata()
                .withNewSpec().withReplicas(replicas).endSpec()
                .withNewStatus().withReadyReplicas(ready).withUpdatedReplicas(ready).withObservedGeneration(observed)
                .withCurrentRevision("r1").withUpdateRevision("r1").endStatus().build();
    }

    private static Deployment available() {
        return new DeploymentBuilder().withNewMetadata().withGeneration(1L).endMetadata()
                .withNewSpec().withReplicas(1).endSpec()
                .withNewStatus().withAvailableReplicas(1).withUpdatedReplicas(1).withObservedGeneration(1L)
                .endStatus().build();
    }

    private static SlurmCluster cluster() {
        SlurmCluster c = aCluster("c").withGroup("cpu", 2, "4", "8Gi").withGroup("gpu", 1, "8", "16Gi").obj();
        c.getMetadata().setGeneration(3L);
        return c;
    }

    private static String condition(SlurmClusterStatus s, String type) {
        var c = Conditions.find(s.getConditions(), type);
        return c.getStatus() + "/" + c.getReason();
    }

    @Test
    void everyComponentRolledOutMakesTheClusterReady() {
        SlurmCluster c = cluster();
        SlurmClusterStatus s = SlurmClusterStatuses.compute(c, new SlurmClusterStatuses.Observed(List.of(),
                sts(1, 1, 2, 2), Map.of("cpu", sts(2, 2, 1, 1), "gpu", sts(1, 1, 1, 1)), available(), null, null, null), T0);
        assertThat(condition(s, "Ready")).isEqualTo("True/Ready");
        assertThat(condition(s, "AccountingReady")).isEqualTo("True/Disabled");
        assertThat(s.getWorkers()).isEqualTo("3/3");
        assertThat(s.getAvailableWorkers()).containsExactlyInAnyOrderEntriesOf(Map.of("cpu", 2, "gpu", 1));
        assertThat(s.getObservedGeneration()).isEqualTo(3L);
    }

    @Test
    void aWorkloadItsControllerHasNotSeenYetIsStillRollingOut() {
        SlurmCluster c = cluster();
        // the cpu group's spec changed (generation 2) but its controller still reports generation 1
        SlurmClusterStatus s = SlurmClusterStatuses.compute(c, new SlurmClusterStatuses.Observed(List.of(),
                sts(1, 1, 2, 2), Map.of("cpu", sts(2, 2, 2, 1), "gpu", sts(1, 1, 1, 1)), available(), null, null, null), T0);
        assertThat(condition(s, "WorkersReady")).isEqualTo("False/Progressing");
        assertThat(Conditions.find(s.getConditions(), "WorkersReady").getMessage())
                .isEqualTo("cpu 2/2 rolling out, gpu 1/1");
        assertThat(condition(s, "Ready")).isEqualTo("False/WorkersReady");
    }

    @Test
    void problemsAndMissingWorkloadsNameTheFailingConditionAndKeepTransitionTimes() {
        SlurmCluster c = cluster();
        c.getSpec().setAccounting(new dev.colocate.api.DatabaseSpec());
        SlurmClusterStatus first = SlurmClusterStatuses.compute(c, new SlurmClusterStatuses.Observed(
                List.of("spec.image \"x\" has no tag or digest"), null, Map.of(), null, null, null, null), T0);
        assertThat(condition(first, "ConfigValid")).isEqualTo("False/InvalidSpec");
        assertThat(Conditions.find(first.getConditions(), "ConfigValid").getMessage())
                .isEqualTo("spec.image \"x\" has no tag or digest (the cluster is left as it was)");
        assertThat(condition(first, "ControllerReady")).isEqualTo("False/NotCreated");
        assertThat(condition(first, "AccountingReady")).isEqualTo("False/NotCreated");
        assertThat(condition(first, "Ready")).isEqualTo("False/ConfigValid");
        assertThat(first.getWorkers()).isEqualTo("0/3");

        c.setStatus(first);
        SlurmClusterStatus later = SlurmClusterStatuses.compute(c, new SlurmClusterStatuses.Observed(
                List.of("spec.image \"x\" has no tag or digest"), null, Map.of(), null, null, null, null), T0.plusSeconds(60));
        assertThat(later).as("nothing changed, nothing to write").isEqualTo(first);
    }

    @Test
    void aScaleInThatWaitsForAJobKeepsTheWorkersProgressingAndSaysWhy() {
        SlurmCluster c = cluster();
        ScaleIn.Plan waiting = new ScaleIn.Plan(c, List.of(), List.of(),
                List.of("cpu: draining c-worker-cpu-2 (1 job)"), List.of("c-worker-cpu-2"));
        SlurmClusterStatus s = SlurmClusterStatuses.compute(c, new SlurmClusterStatuses.Observed(List.of(),
                sts(1, 1, 2, 2), Map.of("cpu", sts(2, 2, 1, 1), "gpu", sts(1, 1, 1, 1)), available(), null,
                waiting, null), T0);

        assertThat(condition(s, "WorkersReady")).isEqualTo("False/ScalingIn");
        assertThat(Conditions.find(s.getConditions(), "WorkersReady").getMessage())
                .endsWith("; scale-in cpu: draining c-worker-cpu-2 (1 job)");
        assertThat(condition(s, "Ready")).isEqualTo("False/WorkersReady");
        assertThat(s.getLeavingWorkers()).containsExactly("c-worker-cpu-2");
    }

    @Test
    void aWorkloadStillOnTheOldConfigIsNotReadyEvenWhenRolledOut() {
        SlurmCluster c = cluster();
        StatefulSet cpu = sts(2, 2, 1, 1);
        cpu.getMetadata().setName("c-worker-cpu");
        cpu.getSpec().setTemplate(new io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder().withNewMetadata()
                .addToAnnotations("colocate.dev/config-hash", "old").endMetadata().build());
        var seen = new SlurmClusterStatuses.Observed(List.of(), sts(1, 1, 2, 2), Map.of("cpu", cpu,
                "gpu", sts(1, 1, 1, 1)), available(), null, null, Map.of("c-worker-cpu", "new"));

        SlurmClusterStatus s = SlurmClusterStatuses.compute(c, seen, T0);

        assertThat(condition(s, "WorkersReady")).isEqualTo("False/Progressing");
        assertThat(condition(s, "Ready")).isEqualTo("False/WorkersReady");
    }
}
