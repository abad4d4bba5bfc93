package dev.colocate.copilot;

import io.smallrye.mutiny.Uni;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * Runs a task per key such that runs for one key never overlap, requests that arrive while one runs fold into a single
 * next run, and keys never wait for each other. A burst of N events for a node thus costs at most two syncs.
 */
public final class Coalescer {

    private static final Logger LOG = Logger.getLogger(Coalescer.class);

    private final Function<String, Uni<Void>> task;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    public Coalescer(Function<String, Uni<Void>> task) {
        this.task = task;
    }

    private static final class Slot {
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicBoolean dirty = new AtomicBoolean();
    }

    /** Asks for a run for the key: now if none runs, after the current one otherwise. */
    public void request(String key) {
        Slot slot = slots.computeIfAbsent(key, k -> new Slot());
        slot.dirty.set(true);
        drain(key, slot);
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
