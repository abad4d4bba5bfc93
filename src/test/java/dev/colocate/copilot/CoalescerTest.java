package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CoalescerTest {

    @Test
    void aBurstOfRequestsForOneKeyBecomesOneRun() {
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        Coalescer c = new Coalescer(key -> {
            runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            return Uni.createFrom().voidItem();
        }, Duration.ofMillis(200));

        for (int i = 0; i < 1000; i++) {
            c.request("node-" + (i % 10));
        }

        await().atMost(Duration.ofSeconds(5)).until(c::idle);
        assertThat(runs).hasSize(10).allSatisfy((k, v) -> assertThat(v.get()).as(k).isEqualTo(1));
    }

    @Test
    void aSteadyTrickleIsStillRunAtTheLatestAfterTheMaximumDelay() {
        AtomicInteger runs = new AtomicInteger();
        Coalescer c = new Coalescer(key -> Uni.createFrom().voidItem().invoke(runs::incrementAndGet),
                Duration.ofMillis(100), Duration.ofMillis(300));

        long end = System.nanoTime() + Duration.ofMillis(1000).toNanos();
        while (System.nanoTime() < end) {
            c.request("n"); // never quiet for 100 ms
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }

        await().atMost(Duration.ofSeconds(5)).until(c::idle);
        assertThat(runs.get()).as("one run per 300 ms of trickle, not one at its end").isBetween(3, 6);
    }

    @Test
    void runsForOneKeyNeverOverlapAndARequestDuringARunGetsOneMore() throws Exception {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger maxRunning = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Coalescer c = new Coalescer(key -> Uni.createFrom().item(() -> {
            maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            if (runs.incrementAndGet() == 1) {
                firstStarted.countDown();
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            running.decrementAndGet();
            return (Void) null;
        }).runSubscriptionOn(io.smallrye.mutiny.infrastructure.Infrastructure.getDefaultWorkerPool()), Duration.ZERO);

        c.request("n");
        assertThat(firstStarted.await(5, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 50; i++) {
            c.request("n");
        }
        release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(c::idle);
        assertThat(runs.get()).isEqualTo(2);
        assertThat(maxRunning.get()).isEqualTo(1);
    }

    @Test
    void aSlowKeyDoesNotHoldUpAnother() {
        AtomicInteger fastRuns = new AtomicInteger();
        Coalescer c = new Coalescer(key -> key.equals("slow")
                ? Uni.createFrom().emitter(e -> { /* never completes */ })
                : Uni.createFrom().voidItem().invoke(fastRuns::incrementAndGet), Duration.ZERO);

        c.request("slow");
        c.request("fast");

        // the fast key ran while the slow one's run is still going
        await().atMost(Duration.ofSeconds(5)).until(() -> fastRuns.get() == 1);
        assertThat(c.idle()).as("the slow key's run never ends").isFalse();
    }
}
