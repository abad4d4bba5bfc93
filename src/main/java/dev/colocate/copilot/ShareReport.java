package dev.colocate.copilot;

import dev.colocate.api.HoldsStatus;
import java.util.List;

/**
 * What a {@link ShareKeeper}'s sync of one node leaves for its GenericNode to show.
 *
 * @param inLine       whether Slurm now accounts for all that Kubernetes holds there
 * @param reason       the Ready condition's reason, e.g. {@code HeldBySlurm}, {@code ShareWritten}
 * @param message      the Ready condition's message
 * @param slurmProblem why Slurm could not be read or written, or null
 * @param drained      why Slurm drained the node, or null
 * @param violations   what exceeds the node beyond the ledger's own (e.g. Kubernetes above what Slurm holds for it)
 * @param counts       GRES mode: the k8scpu/k8smemory counts Slurm has as far as the copilot knows, or null
 * @param holds        hold mode: what Slurm holds for Kubernetes there, or null
 * @param changed      whether this sync changed anything in Slurm (for the sync lag)
 */
public record ShareReport(boolean inLine, String reason, String message, String slurmProblem, String drained,
        List<String> violations, SlurmShare counts, HoldsStatus holds, boolean changed) {

    public ShareReport {
        violations = List.copyOf(violations);
    }
}
