package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HoldLossesTest {

    private static SlurmHold hold(long id, String node) {
        return new SlurmHold(id, node, "k-" + node.substring(4), 4, 4000, true, false, "None", "root");
    }

    private static SlurmJob job(long id, String name, String state, String node, long start, long end) {
        return new SlurmJob(id, name, state, "None", node, null, 1, "debug", "", "", "alice", start, end);
    }

    @Test
    void anEndedHoldIsALossAndTheJobsThatStartedOnItsNodeSinceTookItsRoom() {
        Map<String, List<SlurmHold>> held = Map.of("k-1", List.of(hold(10, "node1"), hold(11, "node1")),
                "k-2", List.of(hold(12, "node2")));
        List<SlurmJob> jobs = List.of(
                job(10, SlurmHold.NAME, "CANCELLED", "node1", 100, 200),
                job(11, SlurmHold.NAME, "RUNNING", "node1", 100, 0),
                job(3, "old", "RUNNING", "node1", 50, 0),
                job(4, "pending-then", "RUNNING", "node1", 200, 0),
                job(5, "elsewhere", "RUNNING", "node2", 201, 0),
                job(12, SlurmHold.NAME, "RUNNING", "node2", 100, 0));

        List<HoldLosses.Loss> losses = HoldLosses.of(held, jobs, j -> j.name().equals(SlurmHold.NAME));

        assertThat(losses).containsExactly(new HoldLosses.Loss("k-1", "node1", List.of(10L), List.of(4L)));
    }

    @Test
    void aHoldMissingFromTheListingIsNoLoss() {
        // a listing of changed jobs only may leave out a hold that runs on
        assertThat(HoldLosses.of(Map.of("k-1", List.of(hold(10, "node1"))), List.of(), j -> false)).isEmpty();
    }
}
