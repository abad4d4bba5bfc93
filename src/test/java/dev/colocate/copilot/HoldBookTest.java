package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.slurm.SlurmHold;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HoldBookTest {

    static SlurmHold hold(long id, String node) {
        return new SlurmHold(id, "node1", node, 1, 100, true, true, "None");
    }

    @Test
    void aListingIsTheTruthExceptForWhatTheCopilotDidAfterItWasTaken() {
        HoldBook book = new HoldBook();
        assertThat(book.listed()).isFalse();
        Instant before = Instant.now().minusSeconds(1);
        book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a"), hold(3, "node-b")), before);
        assertThat(book.listed()).isTrue();
        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactly(1L, 2L);

        Instant listedAt = Instant.now().minusMillis(500);
        book.added(hold(4, "node-a"));
        book.cancelled("node-a", 2);
        // a listing taken before the grant of 4 and the cancel of 2, and after an admin cancelled 3
        List<SlurmHold> lost = book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a")), listedAt);

        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactlyInAnyOrder(1L, 4L);
        assertThat(book.on("node-b")).isEmpty();
        assertThat(lost).extracting(SlurmHold::jobId).containsExactly(3L);
        assertThat(book.nodes()).containsExactly("node-a");
    }
}
