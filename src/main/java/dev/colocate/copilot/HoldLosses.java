package dev.colocate.copilot;

import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Holds of the book that a listing of Slurm's jobs shows ended (an admin's scancel, a node that rebooted or went
 * down), and the Slurm jobs that started on their nodes since: a pending job takes freed CPUs at once, so by the
 * time the copilot holds the share again those jobs have the room, and the node is overcommitted until they end.
 */
final class HoldLosses {

    /**
     * @param holds  the ended holds' job ids
     * @param takers the jobs that started on the node since the first of them ended
     */
    record Loss(String kubernetesNode, String slurmNode, List<Long> holds, List<Long> takers) {
    }

    private HoldLosses() {
    }

    /**
     * @param held      the book's holds by Kubernetes node
     * @param jobs      Slurm's jobs (every job, or those changed lately: only jobs present are looked at)
     * @param isOwnHold whether a job is one of colocate's holds (its user's, in its partition)
     */
    static List<Loss> of(Map<String, List<SlurmHold>> held, List<SlurmJob> jobs,
            java.util.function.Predicate<SlurmJob> isOwnHold) {
        Map<Long, SlurmJob> byId = jobs.stream().collect(Collectors.toMap(SlurmJob::id, Function.identity(),
                (a, b) -> b));
        List<Loss> losses = new ArrayList<>();
        held.forEach((node, holds) -> {
            List<SlurmJob> ended = holds.stream().map(h -> byId.get(h.jobId()))
                    .filter(j -> j != null && !j.isActive()).toList();
            if (ended.isEmpty()) {
                return;
            }
            String slurmNode = holds.stream().filter(h -> h.jobId() == ended.get(0).id()).findFirst().orElseThrow()
                    .node();
            long since = ended.stream().mapToLong(SlurmJob::endTime).filter(t -> t > 0).min().orElse(0);
            List<Long> takers = jobs.stream()
                    .filter(j -> j.isRunning() && j.isOn(slurmNode) && !isOwnHold.test(j) && j.startTime() >= since)
                    .map(SlurmJob::id).sorted().toList();
            losses.add(new Loss(node, slurmNode, ended.stream().map(SlurmJob::id).toList(), takers));
        });
        return losses;
    }
}
