package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.copilot.RegistrationRecovery.AwaitRegistration;
import dev.colocate.copilot.RegistrationRecovery.Hold;
import dev.colocate.copilot.RegistrationRecovery.None;
import dev.colocate.copilot.RegistrationRecovery.RestoreRegistered;
import dev.colocate.copilot.RegistrationRecovery.Resume;
import dev.colocate.slurm.SlurmNode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RegistrationRecoveryTest {

    /** The reason text exactly as Slurm 22.05 sets it, timestamp suffix included. */
    private static final String CPU_CHANGED =
            "gres/k8scpu count changed and jobs are using them (8 != 5) [slurm@2026-12-03T10:17:03]";
    private static final String MEM_CHANGED =
            "gres/k8smemory count changed and jobs are using them (32000 != 20000) [slurm@2026-12-03T10:19:03]";

    private static SlurmNode node(Set<String> state, String reason, long cpuUsed) {
        return new SlurmNode("node1", state, 8, 32000, 2, 2000, Map.of("k8scpu", 5L, "k8smemory", 20000L),
                Map.of("k8scpu", cpuUsed, "k8smemory", cpuUsed * 1000), reason);
    }

    private static final SlurmShare WRITTEN = new SlurmShare(5, 20000);

    @Test
    void aNodeThatIsNotDrainedNeedsNothing() {
        assertThat(RegistrationRecovery.next(node(Set.of("MIXED"), "", 2), WRITTEN, WRITTEN, List.of(), Set.of())).isInstanceOf(None.class);
    }

    @Test
    void aNodeDrainedByAnAdministratorIsNeverResumed() {
        SlurmNode drained = node(Set.of("MIXED", "DRAIN"), "disk replacement [admin@2026-12-03T09:00:00]", 2);
        assertThat(RegistrationRecovery.next(drained, WRITTEN, new SlurmShare(8, 32000), List.of(), Set.of()))
                .isInstanceOf(None.class);
    }

    @Test
    void invalidRegistrationFirstRestoresTheCountSlurmdRegisteredKeepingTheOtherGres() {
        var step = RegistrationRecovery.next(node(Set.of("MIXED", "DRAIN", "INVALID_REG"), CPU_CHANGED, 2), WRITTEN,
                WRITTEN, List.of(), Set.of());
        assertThat(step).isEqualTo(new RestoreRegistered(new SlurmShare(8, 20000), "k8scpu", 8));
        assertThat(step.describe()).contains("k8scpu=8");
    }

    @Test
    void aMemoryMismatchRestoresOnlyTheMemoryCount() {
        var step = RegistrationRecovery.next(node(Set.of("MIXED", "DRAIN", "INVALID_REG"), MEM_CHANGED, 2),
                new SlurmShare(8, 20000), WRITTEN, List.of(), Set.of());
        assertThat(step).isEqualTo(new RestoreRegistered(new SlurmShare(8, 32000), "k8smemory", 32000));
    }

    @Test
    void whenTheRegistrationFailsSilentlyItTriesTheMemoryOfTheShareWrittenWithTheRegisteredCpuCount() {
        SlurmNode invalid = node(Set.of("MIXED", "DRAIN", "INVALID_REG"), CPU_CHANGED, 2);
        SlurmShare cpuRestored = new SlurmShare(8, 20000);
        var step = RegistrationRecovery.next(invalid, cpuRestored, WRITTEN,
                List.of(WRITTEN, new SlurmShare(8, 30000), new SlurmShare(7, 31000)), Set.of(cpuRestored));
        assertThat(step).isEqualTo(new RestoreRegistered(new SlurmShare(8, 30000), "k8scpu", 8));
    }

    @Test
    void withoutHistoryItFallsBackToSlurmConfsCountsAndThenHolds() {
        SlurmNode invalid = node(Set.of("MIXED", "DRAIN", "INVALID_REG"), CPU_CHANGED, 2);
        SlurmShare cpuRestored = new SlurmShare(8, 20000);
        assertThat(RegistrationRecovery.next(invalid, cpuRestored, WRITTEN, List.of(), Set.of(cpuRestored)))
                .isEqualTo(new RestoreRegistered(new SlurmShare(8, 32000), "k8scpu", 8));
        var last = RegistrationRecovery.next(invalid, new SlurmShare(8, 32000), WRITTEN, List.of(),
                Set.of(cpuRestored, new SlurmShare(8, 32000)));
        assertThat(last).isInstanceOf(Hold.class);
        assertThat(last.describe()).contains("restart the slurmd of node1");
    }

    @Test
    void onceRestoredItWaitsForTheRegistration() {
        var step = RegistrationRecovery.next(node(Set.of("MIXED", "DRAIN", "INVALID_REG"), CPU_CHANGED, 2),
                new SlurmShare(8, 20000), WRITTEN, List.of(), Set.of());
        assertThat(step).isEqualTo(new AwaitRegistration("k8scpu", 8));
    }

    @Test
    void afterTheRegistrationItResumesAtTheRegisteredCountWhenThatIsNoMoreThanTheShare() {
        var step = RegistrationRecovery.next(node(Set.of("MIXED", "DRAIN"), CPU_CHANGED, 2),
                new SlurmShare(8, 20000), new SlurmShare(8, 24000), List.of(), Set.of());
        assertThat(step).isEqualTo(new Resume(null));
    }

    @Test
    void itHoldsTheNodeDrainedWhileResumingWouldGiveSlurmWhatKubernetesHolds() {
        var step = RegistrationRecovery.next(node(Set.of("MIXED", "DRAIN"), CPU_CHANGED, 2),
                new SlurmShare(8, 20000), WRITTEN, List.of(), Set.of());
        assertThat(step).isInstanceOf(Hold.class);
        assertThat(step.describe()).contains("k8scpu=8").contains("(5,20000)");
    }

    @Test
    void onceNoJobHoldsTheGresItWritesTheShareAndResumes() {
        var step = RegistrationRecovery.next(node(Set.of("IDLE", "DRAIN"), CPU_CHANGED, 0),
                new SlurmShare(8, 20000), WRITTEN, List.of(), Set.of());
        assertThat(step).isEqualTo(new Resume(WRITTEN));
    }
}
