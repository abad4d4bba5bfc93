package dev.colocate.copilot;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * One lock per node, held by every write of the node's Slurm share: a sync, and a bind from its reserve to its
 * commit. Without it a sync computed before a bind's reservation could raise the share the bind just lowered.
 * Different nodes never wait for each other. Callers block, so they run on worker threads.
 */
@ApplicationScoped
public class NodeLocks {

    private final Map<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    /** Another holder kept the node's lock for longer than the caller could wait. */
    public static final class Busy extends RuntimeException {
        Busy(String node, Duration waited) {
            super("node " + node + " is busy: another write of its Slurm share has held it for over "
                    + waited.toMillis() + " ms");
        }
    }

    /**
     * Runs {@code work} under the node's lock, waiting at most {@code wait} for it, so that a caller with a deadline
     * (a bind, which kube-scheduler gives up on) answers in time; throws {@link Busy} instead.
     */
    public <T> T with(String node, Duration wait, Supplier<T> work) {
        ReentrantLock lock = locks.computeIfAbsent(node, n -> new ReentrantLock());
        try {
            if (!lock.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new Busy(node, wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Busy(node, wait);
        }
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }

    public <T> T with(String node, Supplier<T> work) {
        ReentrantLock lock = locks.computeIfAbsent(node, n -> new ReentrantLock());
        lock.lock();
        try {
            return work.get();
        } finally {
            lock.unlock();
        }
    }
}
