package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.slurm.SlurmHold;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class HoldBookTest {

    static SlurmHold hold(long id, String node) {
        return hold(id, node, "root");
    }

    static SlurmHold hold(long id, String node, String user) {
        return new SlurmHold(id, "node1", node, 1, 100, true, true, "None", user);
    }

    @Test
    void aListingIsTheTruthExceptForWhatTheCopilotDidAfterItWasTaken() {
        HoldBook book = new HoldBook();
        assertThat(book.listed()).isFalse();
        Instant before = Instant.now().minusSeconds(1);
        book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a"), hold(3, "node-b")), "root", before);
        assertThat(book.listed()).isTrue();
        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactly(1L, 2L);

        Instant listedAt = Instant.now().minusMillis(500);
        book.added(hold(4, "node-a"));
        book.cancelled("node-a", 2);
        // a listing taken before the grant of 4 and the cancel of 2, and after an admin cancelled 3
        List<SlurmHold> lost = book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a")), "root", listedAt).lost();

        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactlyInAnyOrder(1L, 4L);
        assertThat(book.on("node-b")).isEmpty();
        assertThat(lost).extracting(SlurmHold::jobId).containsExactly(3L);
        assertThat(book.nodes()).containsExactly("node-a");
    }

    @Test
    void afterSlurmctldRestartsOnlyAListingTakenSinceVouchesForTheBook() {
        HoldBook book = new HoldBook();
        book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a")), "root", Instant.now());
        Instant inFlight = Instant.now().minusSeconds(1);
        book.restarted();
        assertThat(book.listed()).as("right after the restart").isFalse();

        // a listing asked for before the restart, answered after it: true then, but it cannot show what the crash lost
        book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a")), "root", inFlight);
        assertThat(book.listed()).as("after a listing older than the restart").isFalse();

        List<SlurmHold> lost = book.adopt(List.of(hold(1, "node-a")), "root", Instant.now()).lost();
        assertThat(book.listed()).isTrue();
        assertThat(lost).extracting(SlurmHold::jobId).containsExactly(2L);
        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactly(1L);
    }

    @Test
    void aJobIdGrantedAgainAfterACrashIsTheNewHoldOnly() {
        HoldBook book = new HoldBook();
        book.adopt(List.of(hold(7, "node-a")), "root", Instant.now());
        // slurmctld lost hold 7 of node-a and gave its id to the next grant, on node-b
        book.added(hold(7, "node-b"));

        assertThat(book.on("node-a")).isEmpty();
        assertThat(book.on("node-b")).extracting(SlurmHold::jobId).containsExactly(7L);
    }

    @Test
    void aLookAlikeOfAnotherUserIsNeverTakenForAHoldAndIsReportedOnceWhileItLasts() {
        HoldBook book = new HoldBook();
        Instant at = Instant.now();
        HoldBook.Adopted first = book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a", "alice")), "root", at);

        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactly(1L);
        assertThat(first.foreign()).extracting(SlurmHold::jobId, SlurmHold::user).containsExactly(
                org.assertj.core.groups.Tuple.tuple(2L, "alice"));
        // still there at the next listing: not reported again, still not adopted, never "lost"
        HoldBook.Adopted again = book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a", "alice")), "root", at);
        assertThat(again.foreign()).isEmpty();
        assertThat(again.lost()).isEmpty();
        assertThat(book.on("node-a")).extracting(SlurmHold::jobId).containsExactly(1L);
        assertThat(book.owner()).isEqualTo("root");
        // gone, then back (a new job with the same id cannot be, but a resubmitted one is a new id): reported anew
        book.adopt(List.of(hold(1, "node-a")), "root", at);
        assertThat(book.adopt(List.of(hold(1, "node-a"), hold(2, "node-a", "alice")), "root", at).foreign())
                .hasSize(1);
    }
}
