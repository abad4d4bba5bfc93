package dev.colocate.scheduler;

import java.util.Set;
import java.util.function.Supplier;

/**
 * What a failed Binding means for the pod's reserve. The API server refuses some Bindings before doing anything
 * (invalid, forbidden, no such pod, throttled); after any other failure (a 5xx, a timeout, a lost connection, a 409
 * for a pod already bound) it may have bound the pod, which then runs on the node and needs what was reserved for it.
 */
enum BindingOutcome {
    /** The pod is bound to the node: commit. */
    BOUND,
    /** The pod is not bound to the node and will not be: undo the reserve. */
    NOT_BOUND,
    /** The pod may be, or become, bound to the node: keep the reserve, which the reservation's expiry ends. */
    UNKNOWN;

    /** HTTP codes with which the API server refuses a Binding it did not apply. */
    static final Set<Integer> REFUSED = Set.of(400, 401, 403, 404, 422, 429);

    /**
     * The pod read back after the failure.
     *
     * @param read     whether the API server answered the read
     * @param nodeName the pod's node; null while unbound, or when gone or unread
     */
    record ReadBack(boolean read, String nodeName) {
        static final ReadBack UNREADABLE = new ReadBack(false, null);
        static final ReadBack GONE = new ReadBack(true, "");
    }

    /** @param code the failed request's HTTP code (0 when no answer came) */
    static BindingOutcome of(int code, Supplier<ReadBack> readBack, String node) {
        if (REFUSED.contains(code)) {
            return NOT_BOUND;
        }
        ReadBack now = readBack.get();
        if (!now.read() || now.nodeName() == null) {
            // unread, or not bound yet: a Binding still in flight (after a timeout) may yet land
            return UNKNOWN;
        }
        return node.equals(now.nodeName()) ? BOUND : NOT_BOUND;
    }
}
