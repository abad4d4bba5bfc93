package dev.colocate.copilot;

import dev.colocate.api.GenericNode;

/**
 * How Slurm learns what Kubernetes holds on a shared node: by holds (Slurm allocations, the default) or by GRES counts.
 * The copilot's sync and the extender's bind both go through it, and neither knows which mode runs (DESIGN §3).
 * Callers hold the node's lock ({@link NodeLocks}); methods block, so they run on worker threads.
 */
public interface ShareKeeper {

    /** Which mode this is, for logs and status. */
    String mode();

    /**
     * What this keeper itself has Slurm hold on the node (its holds' CPUs and memory), which the ledger takes out of
     * Slurm's row: those are Kubernetes' share, not Slurm's jobs.
     */
    Holdings ownHoldings(SharedNode shared);

    /** Brings Slurm in line with the node's books, and says what the GenericNode should show. */
    ShareReport sync(SharedNode shared, GenericNode genericNode, NodeBooks books, boolean forced);

    /**
     * The reserve step of a bind: from now on Slurm cannot hand out what the pod is to have, or the pod is refused.
     *
     * @throws ShareRefused with the reason, when Slurm cannot make room or was not reachable
     */
    Reserve reserve(SharedNode shared, NodeBooks books, Resources request);

    /** A node is no longer shared: give back what Slurm holds for Kubernetes there. */
    void release(String nodeName);

    /** What a reserve took, to undo if the bind cannot be committed. */
    interface Reserve {
        /** Gives back what the reserve took; failures are logged, never thrown. */
        void undo();

        /** The pod is bound: what the reserve replaced can go. Failures are logged, never thrown. */
        default void committed() {
        }
    }

    /** Why a reserve was refused. */
    final class ShareRefused extends RuntimeException {

        /** Slurm answered and said no (no room, a job won the race), or Slurm could not be asked. */
        public enum Kind {
            NO_ROOM, RACE, UNREACHABLE
        }

        private final Kind kind;

        public ShareRefused(Kind kind, String message) {
            super(message);
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }
    }
}
