package dev.colocate.copilot;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which failures of a repeated task (one node's sync) are news: the first of each cause is, its repeats are not, and
 * the next success ends it. A sync retried every few seconds then logs one WARN per cause, not one per retry.
 */
final class FailureLog {

    private final Map<String, String> current = new ConcurrentHashMap<>();

    /** Records a failure of {@code key}; true when its cause differs from the last one recorded (news). */
    boolean failed(String key, String cause) {
        return !cause.equals(current.put(key, cause));
    }

    /** Records a success of {@code key}; true when it ends a run of failures. */
    boolean succeeded(String key) {
        return current.remove(key) != null;
    }
}
