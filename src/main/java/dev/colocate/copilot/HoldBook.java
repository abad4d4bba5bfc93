package dev.colocate.copilot;

import dev.colocate.slurm.SlurmHold;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The copilot's holds, by Kubernetes node: what it granted, queued and cancelled since, and what Slurm's job list
 * showed at the last listing. A sync reads it instead of listing Slurm's jobs (one listing per resync covers every
 * node), and a listing replaces it, except for what the copilot did after the listing was taken.
 */
@ApplicationScoped
public class HoldBook {

    /** How long the copilot remembers its own grants and cancels, against listings taken before them. */
    private static final Duration MEMORY = Duration.ofMinutes(5);

    private final Clock clock = Clock.systemUTC();
    private final Map<String, List<SlurmHold>> byNode = new ConcurrentHashMap<>();
    private final Map<Long, Instant> granted = new ConcurrentHashMap<>();
    private final Map<Long, Instant> cancelled = new ConcurrentHashMap<>();
    private volatile boolean listed;

    /** The holds of one Kubernetes node. */
    public List<SlurmHold> on(String kubernetesNode) {
        return byNode.getOrDefault(kubernetesNode, List.of());
    }

    /** The Kubernetes nodes that have holds. */
    public Set<String> nodes() {
        return byNode.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** Records a hold the copilot was just granted, or queued. */
    public synchronized void added(SlurmHold hold) {
        granted.put(hold.jobId(), clock.instant());
        byNode.compute(hold.kubernetesNode(), (n, list) -> {
            List<SlurmHold> next = new ArrayList<>(list == null ? List.of() : list);
            next.removeIf(h -> h.jobId() == hold.jobId());
            next.add(hold);
            return List.copyOf(next);
        });
    }

    /** Records a hold the copilot just cancelled. */
    public synchronized void cancelled(String kubernetesNode, long jobId) {
        cancelled.put(jobId, clock.instant());
        byNode.computeIfPresent(kubernetesNode, (n, list) -> list.stream().filter(h -> h.jobId() != jobId).toList());
    }

    /**
     * Takes Slurm's listing, taken at {@code listedAt}, as the truth: holds Slurm lost (a node reboot, an admin's
     * scancel) are forgotten and holds of an earlier copilot are adopted, but a hold granted after the listing was
     * taken is kept and one cancelled after it stays gone.
     *
     * @return the holds the book had that Slurm no longer has
     */
    public synchronized List<SlurmHold> adopt(List<SlurmHold> listing, Instant listedAt) {
        Instant now = clock.instant();
        listed = true;
        granted.values().removeIf(t -> t.isBefore(now.minus(MEMORY)));
        cancelled.values().removeIf(t -> t.isBefore(now.minus(MEMORY)));
        Map<String, List<SlurmHold>> next = new java.util.HashMap<>();
        Set<Long> listed = listing.stream().map(SlurmHold::jobId).collect(Collectors.toSet());
        for (SlurmHold h : listing) {
            Instant cancelledAt = cancelled.get(h.jobId());
            if (cancelledAt == null || cancelledAt.isBefore(listedAt)) {
                next.computeIfAbsent(h.kubernetesNode(), n -> new ArrayList<>()).add(h);
            }
        }
        byNode.values().stream().flatMap(List::stream)
                .filter(h -> !listed.contains(h.jobId()))
                .filter(h -> granted.getOrDefault(h.jobId(), Instant.MIN).isAfter(listedAt))
                .forEach(h -> next.computeIfAbsent(h.kubernetesNode(), n -> new ArrayList<>()).add(h));
        Set<Long> kept = next.values().stream().flatMap(List::stream).map(SlurmHold::jobId)
                .collect(Collectors.toSet());
        List<SlurmHold> lost = byNode.values().stream().flatMap(List::stream)
                .filter(h -> !kept.contains(h.jobId())).toList();
        byNode.keySet().retainAll(next.keySet());
        next.forEach((n, list) -> byNode.put(n, List.copyOf(list)));
        return lost;
    }

    /** Whether Slurm's holds were listed at least once: until then the copilot does not know what it holds. */
    public boolean listed() {
        return listed;
    }
}
