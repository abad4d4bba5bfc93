package dev.colocate.copilot;

import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * The arithmetic of one shared node, with no I/O: from the node's allocatable, the pods bound to it, the admitted
 * reservations and Slurm's view of it, what each side holds and what Slurm may have.
 */
public final class Ledger {

    private Ledger() {
    }

    /**
     * Whether a pod holds resources on the node: bound to it, not finished, and not the node's own slurmd pod, whose
     * CPUs and memory are Slurm's and are counted on the Slurm side.
     */
    public static boolean counts(Pod pod, String nodeName, Predicate<Pod> isSlurmd) {
        if (pod.getSpec() == null || !nodeName.equals(pod.getSpec().getNodeName())) {
            return false;
        }
        return !isTerminal(pod) && !isSlurmd.test(pod);
    }

    /** Whether the pod finished (Succeeded or Failed): its containers hold nothing any more. */
    public static boolean isTerminal(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /** What Kubernetes holds: the requests of the counted pods plus the admitted reservations not yet seen bound. */
    public static Resources kubernetes(Collection<Pod> countedPods, Collection<Resources> reservations) {
        Resources k = Resources.ZERO;
        for (Pod p : countedPods) {
            k = k.plus(PodRequests.of(p));
        }
        for (Resources r : reservations) {
            k = k.plus(r);
        }
        return k;
    }

    /**
     * What Slurm's own jobs hold on the node: the k8s GRES they use, or the CPUs and memory allocated to them where
     * that is more (a job that bypassed job_submit.lua holds no GRES but still holds CPUs), less the copilot's holds,
     * which are Kubernetes' share (they carry the k8s GRES where the node defines them).
     */
    public static Resources slurm(SlurmNode node, Holdings holds) {
        if (node == null) {
            return Resources.ZERO;
        }
        Resources byGres = nonNegative(Resources.ofSlurm(node.gresUsed(SlurmNode.K8S_CPU),
                node.gresUsed(SlurmNode.K8S_MEMORY)).minus(holds.gres()));
        Resources byAlloc = nonNegative(Resources.ofSlurm(node.allocCpus(), node.allocMemoryMb())
                .minus(holds.alloc()));
        return byGres.max(byAlloc);
    }

    /**
     * What Slurm's node has beyond the Kubernetes node's allocatable: the kubelet's system and kube reserve, which an
     * external Slurm's CPUs and RealMemory often include. Slurm must not run jobs there, so hold mode holds it for
     * Kubernetes beside the pods' requests. Nothing while the allocatable is not known.
     */
    public static Resources kubeletReserve(Resources allocatable, SlurmNode node) {
        if (node == null || allocatable.milliCpu() <= 0 || allocatable.bytes() <= 0) {
            return Resources.ZERO;
        }
        return nonNegative(Resources.ofSlurm(node.cpus(), node.realMemoryMb()).minus(allocatable));
    }

    private static Resources nonNegative(Resources r) {
        return r.max(Resources.ZERO);
    }

    /** The node's books. */
    public static NodeLedger compute(Resources capacity, Resources kubernetes, Resources slurm) {
        List<String> violations = new ArrayList<>();
        Resources total = kubernetes.plus(slurm);
        if (total.milliCpu() > capacity.milliCpu()) {
            violations.add("cpu: Kubernetes holds " + kubernetes.cpuQuantity() + " and Slurm " + slurm.cpuQuantity()
                    + ", together " + total.cpuQuantity() + " of " + capacity.cpuQuantity());
        }
        if (total.bytes() > capacity.bytes()) {
            violations.add("memory: Kubernetes holds " + kubernetes.memoryQuantity() + " and Slurm "
                    + slurm.memoryQuantity() + ", together " + total.memoryQuantity() + " of "
                    + capacity.memoryQuantity());
        }
        return new NodeLedger(capacity, kubernetes, slurm, SlurmShare.leftOver(capacity, kubernetes),
                List.copyOf(violations));
    }
}
