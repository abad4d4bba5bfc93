package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.Conditions;
import dev.colocate.api.GenericNodeStatus;
import dev.colocate.api.HoldsStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GenericNodeStatusesTest {

    static final Resources C = Resources.of(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32000Mi")));
    static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    static final Instant T1 = Instant.parse("2026-12-02T10:05:00Z");

    private static NodeLedger ledger(long kMilli, long sCpus) {
        return Ledger.compute(C, new Resources(kMilli, 1L << 30), Resources.ofSlurm(sCpus, 1000));
    }

    private static ShareReport written(NodeLedger l) {
        return new ShareReport(true, "ShareWritten", "counts match", null, null, List.of(), l.share(), null, true);
    }

    private static Condition condition(GenericNodeStatus s, String type) {
        return Conditions.find(s.getConditions(), type);
    }

    @Test
    void showsBothOwnersCapacityShareAndReadyWhenTheShareIsWritten() {
        NodeLedger l = ledger(2735, 3);
        GenericNodeStatus s = GenericNodeStatuses.build(null, l, written(l), "gres", List.of(), 1L, T0);

        assertThat(s.getAllocatedResources()).extracting(a -> a.getType()).containsExactly("Slurm", "Kubernetes");
        assertThat(s.getAllocatedResources().get(1).getAllocated().get("cpu")).isEqualTo(new Quantity("2735m"));
        assertThat(s.getCapacity()).containsEntry("memory", new Quantity("32000Mi"));
        assertThat(s.getSlurmShare()).containsEntry("k8scpu", 5L);
        assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
        assertThat(condition(s, "SlurmReachable").getStatus()).isEqualTo("True");
        assertThat(condition(s, "Overcommitted").getStatus()).isEqualTo("False");
        assertThat(condition(s, "Ready").getObservedGeneration()).isEqualTo(1L);
    }

    @Test
    void keepsTheTransitionTimeWhileAConditionHoldsAndMovesItWhenItFlips() {
        NodeLedger l = ledger(2735, 3);
        GenericNodeStatus first = GenericNodeStatuses.build(null, l, written(l), "gres", List.of(), 1L, T0);

        GenericNodeStatus same = GenericNodeStatuses.build(first, l, written(l), "gres", List.of(), 1L, T1);
        GenericNodeStatus down = GenericNodeStatuses.build(first, l, new ShareReport(false, "SlurmUnreachable",
                "slurmrestd unreachable", "slurmrestd unreachable", null, List.of(), null, null, false), "gres",
                List.of(), 1L, T1);

        assertThat(condition(same, "Ready").getLastTransitionTime()).isEqualTo(T0.toString());
        assertThat(condition(down, "Ready").getLastTransitionTime()).isEqualTo(T1.toString());
        assertThat(condition(down, "SlurmReachable").getMessage()).isEqualTo("slurmrestd unreachable");
        assertThat(condition(down, "Ready").getReason()).isEqualTo("SlurmUnreachable");
        assertThat(down.getAllocatedResources()).as("the books are still shown").hasSize(2);
    }

    @Test
    void aFailedSyncKeepsWhatTheNodeLastShowedAndSaysItMayBeStaleUntilASyncGoesThrough() {
        NodeLedger l = ledger(2735, 3);
        GenericNodeStatus synced = GenericNodeStatuses.build(null, l, written(l), "gres", List.of(), 1L, T0);
        assertThat(condition(synced, "Synced").getStatus()).isEqualTo("True");

        GenericNodeStatus failed = GenericNodeStatuses.syncFailed(synced, "GenericNode k-1: 422 Unprocessable", 1L,
                T1);
        assertThat(condition(failed, "Synced").getStatus()).isEqualTo("False");
        assertThat(condition(failed, "Synced").getReason()).isEqualTo("SyncFailed");
        assertThat(condition(failed, "Synced").getMessage()).contains("may be stale: GenericNode k-1: 422 "
                + "Unprocessable");
        assertThat(failed.getAllocatedResources()).isEqualTo(synced.getAllocatedResources());
        assertThat(condition(synced, "Synced").getStatus()).as("the previous status is not changed").isEqualTo("True");

        GenericNodeStatus again = GenericNodeStatuses.build(failed, l, written(l), "gres", List.of(), 1L, T1);
        assertThat(condition(again, "Synced").getStatus()).isEqualTo("True");
    }

    @Test
    void anOvercommitNamesTheAmounts() {
        NodeLedger l = ledger(6000, 3);
        GenericNodeStatus s = GenericNodeStatuses.build(null, l, written(l), "gres", List.of(), 1L, T0);

        assertThat(condition(s, "Overcommitted").getStatus()).isEqualTo("True");
        assertThat(condition(s, "Overcommitted").getMessage())
                .isEqualTo("cpu: Kubernetes holds 6 and Slurm 3, together 9 of 8");
    }

    @Test
    void inHoldModeItShowsTheHoldsAndAnUncoveredNeedIsAnOvercommit() {
        NodeLedger l = ledger(2735, 3);
        HoldsStatus holds = new HoldsStatus(1, 1, new Quantity("2"), new Quantity("1500Mi"), new Quantity("3"),
                new Quantity("1024Mi"), List.of(7L, 8L));
        GenericNodeStatus s = GenericNodeStatuses.build(null, l, new ShareReport(false, "HoldWaiting",
                "Kubernetes needs 3 CPU", null, null, List.of("Kubernetes needs 3 CPU and 1024 MB on Slurm node node1 "
                        + "but Slurm holds only 2 CPU and 1500 MB for it"), null, holds, true), "hold", List.of(), 1L,
                T0);

        assertThat(s.getShareMode()).isEqualTo("hold");
        assertThat(s.getHolds().getJobIds()).containsExactly(7L, 8L);
        assertThat(s.getSlurmShare()).as("hold mode writes no count").isEmpty();
        assertThat(condition(s, "Ready").getReason()).isEqualTo("HoldWaiting");
        assertThat(condition(s, "Overcommitted").getStatus()).isEqualTo("True");
        assertThat(condition(s, "Overcommitted").getMessage()).contains("Slurm holds only 2 CPU");
    }
}
