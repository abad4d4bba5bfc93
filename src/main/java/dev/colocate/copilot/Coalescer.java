package dev.colocate.copilot;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Runs a task per key such that runs for one key never overlap, requests that arrive while one runs fold into a single
 * next run, and keys never wait for each other. A run for an idle key starts once no request for it has come for
 * {@code window}, but no later than {@code maxDelay} after the first, so that a burst of events for a node (a
 * Deployment scaled up, say) costs one sync, and a steady stream still gets one every {@code maxDelay}.
 */
public final class Coalescer {

    private static final Logger LOG = Logger.getLogger(Coalescer.class);
    private static final long MIN_DELAY_NANOS = Duration.ofMillis(1).toNanos();

    private final Function<String, Uni<Void>> task;
    private final Duration window;
    private final Duration maxDelay;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    public Coalescer(Function<String, Uni<Void>> task, Duration window, Duration maxDelay) {
        this.task = task;
        this.window = window;
        this.maxDelay = maxDelay;
    }

    public Coalescer(Function<String, Uni<Void>> task, Duration window) {
        this(task, window, window.multipliedBy(10));
    }

    private static final class Slot {
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicBoolean dirty = new AtomicBoolean();
        volatile long firstNanos;
        volatile long lastNanos;
    }

    /** Asks for a run for the key: now if none runs, after the current one otherwise. */
    public void request(String key) {
        Slot slot = slots.computeIfAbsent(key, k -> new Slot());
        long now = System.nanoTime();
        slot.lastNanos = now;
        if (slot.dirty.getAndSet(true)) {
            return; // a run is already due: after the quiet window, or right after the one going
        }
        slot.firstNanos = now;
        if (slot.running.get()) {
            drain(key, slot); // no-op while it runs; the run's end drains again and sees the request
        } else if (window.isZero()) {
            drain(key, slot);
        } else {
            later(key, slot, window.toNanos());
        }
    }

    private void later(String key, Slot slot, long nanos) {
        // Quarkus runs Mutiny's delays on Vert.x timers, which refuse a delay under 1 ms; Mutiny drops that failure,
        // and the key, left dirty, would never run again
        Duration delay = Duration.ofNanos(Math.max(nanos, MIN_DELAY_NANOS));
        Uni.createFrom().voidItem().onItem().delayIt().by(delay).subscribe().with(x -> {
            long now = System.nanoTime();
            long due = Math.min(slot.lastNanos + window.toNanos(), slot.firstNanos + maxDelay.toNanos());
            if (due > now && !slot.running.get()) {
                later(key, slot, due - now);
            } else {
                drain(key, slot);
            }
        });
    }

    private void drain(String key, Slot slot) {
        if (!slot.running.compareAndSet(false, true)) {
            return;
        }
        if (!slot.dirty.getAndSet(false)) {
            slot.running.set(false);
            // a request may have arrived between the check and the release
            if (slot.dirty.get()) {
                drain(key, slot);
            }
            return;
        }
        Uni<Void> run;
        try {
            run = task.apply(key);
        } catch (RuntimeException e) {
            run = Uni.createFrom().failure(e);
        }
        run.subscribe().with(
                ok -> finish(key, slot),
                failure -> {
                    LOG.debugf(failure, "sync of %s failed", key);
                    finish(key, slot);
                });
    }

    private void finish(String key, Slot slot) {
        slot.running.set(false);
        drain(key, slot);
    }

    /** Whether any key has a run going or waiting. */
    public boolean idle() {
        return slots.values().stream().noneMatch(s -> s.running.get() || s.dirty.get());
    }
}
