package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FirstSyncsTest {

    @Test
    void theNodesKnownAtTheStartMustEachBeSyncedOnceThenNoneIsAwaitedOrCounted() {
        FirstSyncs first = new FirstSyncs();
        AtomicInteger asked = new AtomicInteger();
        List<String> shared = List.of("k-2", "k-1");

        assertThat(first.pending(() -> shared)).containsExactly("k-1", "k-2");
        first.synced("k-2");
        assertThat(first.pending(() -> shared)).containsExactly("k-1");
        first.synced("k-1");
        assertThat(first.pending(() -> {
            asked.incrementAndGet();
            return shared;
        })).isEmpty();
        // from then on a node that joins is not waited for, and the shared nodes are not even asked for
        assertThat(first.pending(() -> {
            asked.incrementAndGet();
            return List.of("k-1", "k-2", "k-3");
        })).isEmpty();
        assertThat(asked).hasValue(1);
    }
}
