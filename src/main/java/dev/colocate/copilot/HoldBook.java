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
    /** Listings taken before this instant no longer vouch for the book: slurmctld restarted since. */
    private volatile Instant staleBefore = Instant.MIN;
    private volatile String owner = "";
    /** The look-alike holds of other users reported so far, by job id. */
    private final Set<Long> reportedForeign = new java.util.HashSet<>();
    /** The Slurm jobs that took the room of a lost hold, by Kubernetes node, until the share is held again. */
    private final Map<String, List<Long>> takers = new ConcurrentHashMap<>();

    /** The holds of one Kubernetes node. */
    public List<SlurmHold> on(String kubernetesNode) {
        return byNode.getOrDefault(kubernetesNode, List.of());
    }

    /** Every hold, by Kubernetes node. */
    public Map<String, List<SlurmHold>> byNode() {
        return Map.copyOf(byNode);
    }

    /** Records the Slurm jobs that started in the room a lost hold of the node left. */
    public void roomTaken(String kubernetesNode, List<Long> jobIds) {
        if (!jobIds.isEmpty()) {
            takers.merge(kubernetesNode, List.copyOf(jobIds), (a, b) -> java.util.stream.Stream.concat(a.stream(),
                    b.stream()).distinct().sorted().toList());
        }
    }

    /** The Slurm jobs that took the room of the node's lost holds; empty once the share is held again. */
    public List<Long> takers(String kubernetesNode) {
        return takers.getOrDefault(kubernetesNode, List.of());
    }

    /** The node's share is held again: nothing took its room any more. */
    public void roomBack(String kubernetesNode) {
        takers.remove(kubernetesNode);
    }

    /** The Kubernetes nodes that have holds. */
    public Set<String> nodes() {
        return byNode.entrySet().stream().filter(e -> !e.getValue().isEmpty()).map(Map.Entry::getKey)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** The Kubernetes nodes that have holds but are not among {@code shared}: their sync cancels the holds. */
    public List<String> nodesBeyond(java.util.Collection<String> shared) {
        return nodes().stream().filter(n -> !shared.contains(n)).sorted().toList();
    }

    /**
     * Records a hold the copilot was just granted, or queued. A job id names one job: a slurmctld that crashed before
     * saving a hold gives its id to the next job, so an entry of another node with this id is the lost hold's.
     */
    public synchronized void added(SlurmHold hold) {
        granted.put(hold.jobId(), clock.instant());
        byNode.replaceAll((n, list) -> list.stream().anyMatch(h -> h.jobId() == hold.jobId())
                ? list.stream().filter(h -> h.jobId() != hold.jobId()).toList() : list);
        byNode.merge(hold.kubernetesNode(), List.of(hold), (list, added) -> java.util.stream.Stream.concat(
                list.stream(), added.stream()).toList());
    }

    /** Records a hold the copilot just cancelled. */
    public synchronized void cancelled(String kubernetesNode, long jobId) {
        cancelled.put(jobId, clock.instant());
        byNode.computeIfPresent(kubernetesNode, (n, list) -> list.stream().filter(h -> h.jobId() != jobId).toList());
    }

    /**
     * What a listing changed: the holds the book had that Slurm no longer has, and the jobs of other users than
     * colocate's holds user that look like holds, each reported once while it lasts.
     */
    public record Adopted(List<SlurmHold> lost, List<SlurmHold> foreign) {
    }

    /**
     * Takes Slurm's listing, taken at {@code listedAt}, as the truth for the holds of {@code owner}, the user colocate
     * holds as: holds Slurm lost (a node reboot, an admin's scancel) are forgotten and holds of an earlier copilot are
     * adopted, but a hold granted after the listing was taken is kept and one cancelled after it stays gone. A job of
     * another user is never taken for a hold, whatever its name and comment say: any Slurm user can name a job so,
     * and one counted as Kubernetes' share would let Slurm overcommit the node, one cancelled would kill a user's job.
     * It stays Slurm's, counted in Slurm's row like any job.
     */
    public synchronized Adopted adopt(List<SlurmHold> listing, String owner, Instant listedAt) {
        Instant now = clock.instant();
        listed = listed || !listedAt.isBefore(staleBefore);
        this.owner = owner;
        granted.values().removeIf(t -> t.isBefore(now.minus(MEMORY)));
        cancelled.values().removeIf(t -> t.isBefore(now.minus(MEMORY)));
        List<SlurmHold> foreign = listing.stream().filter(h -> !owner.equals(h.user())).toList();
        reportedForeign.retainAll(foreign.stream().map(SlurmHold::jobId).collect(Collectors.toSet()));
        List<SlurmHold> newlyForeign = foreign.stream().filter(h -> reportedForeign.add(h.jobId())).toList();
        List<SlurmHold> own = listing.stream().filter(h -> owner.equals(h.user())).toList();
        Map<String, List<SlurmHold>> next = new java.util.HashMap<>();
        Set<Long> listed = own.stream().map(SlurmHold::jobId).collect(Collectors.toSet());
        for (SlurmHold h : own) {
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
        return new Adopted(lost, newlyForeign);
    }

    /** The user colocate holds as, from the last listing; empty before it. */
    public String owner() {
        return owner;
    }

    /**
     * slurmctld restarted: a crash loses the jobs of its last seconds, which it had not saved yet, holds included, and
     * until a listing taken after now shows which, the book may count room Slurm no longer holds. A pod bound into that
     * room would overcommit the node, so nothing is granted on the book's word until then ({@link #listed()}).
     */
    public synchronized void restarted() {
        staleBefore = clock.instant();
        listed = false;
    }

    /**
     * Whether Slurm's holds were listed at least once, and since slurmctld last restarted: until then the copilot does
     * not know what it holds.
     */
    public boolean listed() {
        return listed;
    }
}
