package dev.colocate.scheduler;

import dev.colocate.copilot.NodeLedger;
import dev.colocate.copilot.Resources;
import dev.colocate.copilot.SlurmShare;
import dev.colocate.scheduler.ExtenderTypes.HostPriority;
import java.util.ArrayList;
import java.util.List;

/**
 * The extender's arithmetic for one pod on one shared node (DESIGN §3), pure so that filter, prioritize and bind
 * decide alike: a pod with requests r fits when K + r + S ≤ C for CPU and for memory.
 */
public final class Fit {

    private Fit() {
    }

    /**
     * Why the pod does not fit, one readable line per resource that would exceed the node, or an empty list when it
     * fits, e.g. "Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8".
     */
    public static List<String> refusals(NodeLedger ledger, Resources request) {
        Resources c = ledger.capacity();
        Resources k = ledger.kubernetes();
        Resources s = ledger.slurm();
        List<String> reasons = new ArrayList<>(2);
        if (exceeds(k.milliCpu(), request.milliCpu(), s.milliCpu(), c.milliCpu())) {
            reasons.add("Slurm holds " + s.cpuQuantity() + " CPU, Kubernetes " + k.cpuQuantity() + ", pod needs "
                    + request.cpuQuantity() + ", node has " + c.cpuQuantity());
        }
        if (exceeds(k.bytes(), request.bytes(), s.bytes(), c.bytes())) {
            reasons.add("Slurm holds " + s.memoryQuantity() + " memory, Kubernetes " + k.memoryQuantity()
                    + ", pod needs " + request.memoryQuantity() + ", node has " + c.memoryQuantity());
        }
        return List.copyOf(reasons);
    }

    /** Whether the pod fits, as {@link #refusals} is empty, without building the reasons. */
    public static boolean fits(NodeLedger ledger, Resources request) {
        Resources c = ledger.capacity();
        Resources k = ledger.kubernetes();
        Resources s = ledger.slurm();
        return !exceeds(k.milliCpu(), request.milliCpu(), s.milliCpu(), c.milliCpu())
                && !exceeds(k.bytes(), request.bytes(), s.bytes(), c.bytes());
    }

    /**
     * The Slurm share once the pod is admitted: the counts the reserve step of bind writes. Because S is whole CPUs
     * and MB, a pod that fits leaves a share of at least S, so the reserve never takes from a running job.
     */
    public static SlurmShare shareWith(NodeLedger ledger, Resources request) {
        return SlurmShare.leftOver(ledger.capacity(), ledger.kubernetes().plus(request));
    }

    /**
     * The node's priority for the pod, 0 to {@link HostPriority#MAX_SCORE}: the whole CPUs the pod leaves Slurm free
     * to hand out (its share once the pod is admitted, less what its jobs hold), as a part of the node's CPUs. A node
     * with no CPUs, or where the pod does not fit, scores 0.
     */
    public static long priority(NodeLedger ledger, Resources request) {
        long cores = ledger.capacity().milliCpu() / 1000;
        if (cores <= 0 || !fits(ledger, request)) {
            return 0;
        }
        long held = (ledger.slurm().milliCpu() + 999) / 1000;
        long left = Math.max(0, shareWith(ledger, request).cpuCores() - held);
        return Math.min(HostPriority.MAX_SCORE, left * HostPriority.MAX_SCORE / cores);
    }

    /** K + r + S > C without overflow, for values that are each non-negative. */
    private static boolean exceeds(long k, long r, long s, long c) {
        return k > c || r > c - k || s > c - k - r;
    }
}
