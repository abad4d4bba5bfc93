package dev.colocate.copilot;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
