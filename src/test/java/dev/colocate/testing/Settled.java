package dev.colocate.testing;

import dev.colocate.api.GenericNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * What a shared node looks like once colocate has recovered from a fault, read from outside colocate (squeue, sinfo
 * and the API server): Slurm holds exactly what the pods bound there request, rounded up to whole CPUs and MiB (at
 * least one CPU and one MB while anything is needed, as Slurm grants no smaller job), no hold waits, no reservation is
 * left on the GenericNode, and no Slurm node is drained. Exactly, so the holds must have been compacted: the tests
 * that use it give colocate a short {@code colocate.copilot.hold-compact-after}.
 */
public final class Settled {

    private Settled() {
    }

    /** What still differs from the settled state; empty when every node is settled. */
    public static List<String> problems(SlurmHarness harness, KubernetesClient client,
            List<OvercommitSampler.Node> nodes, String holdsPartition) {
        List<String> problems = new ArrayList<>();
        List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
        // %k: the hold's comment names the Kubernetes node (colocate:<node>), also while it waits
        String[] holds = harness.run("squeue", "-h", "-a", "-p", holdsPartition, "-o", "%T|%k|%C|%m").split("\n");
        for (OvercommitSampler.Node node : nodes) {
            Requested requested = Requested.onNode(pods, node.kubernetes());
            long needCpus = Math.floorDiv(requested.milliCpu() + 999, 1000);
            long needMb = Math.floorDiv(requested.bytes() + (1 << 20) - 1, 1 << 20);
            if (needCpus > 0 || needMb > 0) {
                needCpus = Math.max(needCpus, 1);
                needMb = Math.max(needMb, 1);
            }
            long heldCpus = 0;
            long heldMb = 0;
            int waiting = 0;
            for (String line : holds) {
                String[] f = line.strip().split("\\|");
                if (f.length < 4 || !f[1].equals("colocate:" + node.kubernetes())) {
                    continue;
                }
                if (f[0].equals("RUNNING")) {
                    heldCpus += Long.parseLong(f[2]);
                    heldMb += OvercommitSampler.megabytes(f[3]);
                } else {
                    waiting++;
                }
            }
            if (heldCpus != needCpus || heldMb != needMb) {
                problems.add(node.kubernetes() + ": Slurm holds " + heldCpus + " CPUs/" + heldMb + " MB, its pods need "
                        + needCpus + "/" + needMb);
            }
            if (waiting > 0) {
                problems.add(node.kubernetes() + ": " + waiting + " holds wait");
            }
            GenericNode gn = client.resources(GenericNode.class).withName(node.kubernetes()).get();
            if (gn != null && gn.getStatus() != null && gn.getStatus().getReservations() != null
                    && !gn.getStatus().getReservations().isEmpty()) {
                problems.add(node.kubernetes() + ": reservations left " + gn.getStatus().getReservations());
            }
        }
        String drained = harness.run("sinfo", "-h", "-R", "-o", "%N %E").strip();
        if (!drained.isEmpty()) {
            problems.add("drained: " + drained);
        }
        return problems;
    }
}
