package dev.colocate.copilot;

import dev.colocate.events.EventRecorder;
import dev.colocate.config.CopilotConfig;
import dev.colocate.slurm.Gres;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The copilot's pipeline: informer events, the Slurm poll and the resync tick merge into one stream of node names;
 * a {@link Coalescer} turns it into at most one running sync per node, with bursts folded into one more.
 */
@ApplicationScoped
public class CopilotRole {

    private static final Logger LOG = Logger.getLogger(CopilotRole.class);
    static final String BAD_CONSTRAINTS = "BadConstraints";

    @Inject
    CopilotConfig config;

    @Inject
    ClusterView view;

    @Inject
    NodeSync sync;

    @Inject
    SlurmLinks links;

    @Inject
    EventRecorder events;

    @Inject
    CopilotLeadership leadership;

    @Inject
    SlurmClusterDiscovery discovery;

    private Coalescer coalescer;
    private final List<Cancellable> subscriptions = new ArrayList<>();

    void onStart(@Observes StartupEvent event) {
        if (!config.enabled()) {
            LOG.info("copilot role is off (colocate.copilot.enabled=false)");
            return;
        }
        leadership.start(this::run);
    }

    /** Starts the pipeline, once this replica leads. */
    private synchronized void run() {
        long start = System.nanoTime();
        // before any sync: an earlier copilot's holds are adopted, not duplicated (a link found later lists its holds
        // at its first poll, and its keeper grants none before). Slurm is asked (a token minted, a REST client made)
        // and the SlurmClusters are listed on workers while the informers list.
        var worker = io.smallrye.mutiny.infrastructure.Infrastructure.getDefaultWorkerPool();
        var holds = holdMode() ? listHolds().runSubscriptionOn(worker).subscribeAsCompletionStage() : null;
        var discovered = Uni.createFrom().voidItem().invoke(discovery::start).runSubscriptionOn(worker)
                .subscribeAsCompletionStage();
        view.start();
        long listed = System.nanoTime();
        Uni.createFrom().completionStage(discovered).await().indefinitely();
        if (holds != null) {
            Uni.createFrom().completionStage(holds).await().atMost(config.resyncInterval());
        }
        LOG.infof("copilot started in %d ms: %d pods, %d nodes and %d GenericNodes listed in %d ms%s",
                (System.nanoTime() - start) / 1_000_000, view.pods().size(), view.nodes().size(),
                view.genericNodes().size(), (listed - start) / 1_000_000, holdMode() ? ", holds listed" : "");
        coalescer = new Coalescer(sync::sync, config.coalesceWindow(), config.coalesceMaxDelay());
        Multi<String> informerEvents = view.touchedNodes().invoke(sync::touched);
        Multi<String> polls = Multi.createFrom().ticks().every(config.slurmPollInterval())
                .onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> poll())
                .onItem().transformToIterable(Function.identity());
        Multi<String> resyncs = Multi.createFrom().ticks().every(config.resyncInterval())
                .onOverflow().drop()
                .onItem().transformToUniAndConcatenate(tick -> discovery.refresh()
                        .chain(() -> holdMode() ? listHolds() : Uni.createFrom().voidItem())
                        .map(x -> {
                            List<String> all = new ArrayList<>(view.sharedNodes().keySet());
                            all.forEach(sync::force);
                            // holds of nodes no longer shared: their sync cancels them
                            links.all().forEach(l -> all.addAll(l.holds().nodesBeyond(all)));
                            return all;
                        }))
                .onItem().transformToIterable(Function.identity());
        subscriptions.add(Multi.createBy().merging().streams(informerEvents, polls, resyncs)
                .subscribe().with(coalescer::request, f -> LOG.error("copilot pipeline stopped", f)));
        poll().subscribe().with(nodes -> nodes.forEach(coalescer::request));
        leadership.serving(true);
    }

    private boolean holdMode() {
        return config.shareMode() == CopilotConfig.ShareMode.HOLD;
    }

    /** Lists the holds of every Slurm served; see {@link #listHolds(SlurmLink)}. */
    Uni<Void> listHolds() {
        List<Uni<Void>> all = links.all().stream().map(this::listHolds).toList();
        return all.isEmpty() ? Uni.createFrom().voidItem() : Uni.join().all(all).andFailFast().replaceWithVoid();
    }

    /**
     * Lists the holds in one Slurm (one call for all its nodes) and takes those of colocate's holds user as the truth;
     * a hold Slurm lost is reported, and the node's next sync holds its share again. A look-alike of another user is
     * reported once and left alone. A failed listing keeps the book as it was.
     */
    Uni<Void> listHolds(SlurmLink link) {
        java.time.Instant at = java.time.Instant.now();
        link.state().jobsAskedAt(at.getEpochSecond());
        HoldBook book = link.holds();
        return link.slurm().jobs().flatMap(jobs -> {
            List<SlurmHold> listing = jobs.stream().flatMap(j -> SlurmHold.of(j, config.holdsPartition()).stream())
                    .toList();
            // who colocate holds as matters only when some job looks like a hold (for a 22.05 SlurmCluster, asking
            // means an exec into slurmctld's pod)
            return owner(link, !listing.isEmpty()).map(owner -> {
                HoldLosses.of(book.byNode(), jobs, j -> isOwnHold(j, owner))
                        .forEach(l -> book.roomTaken(l.kubernetesNode(), l.takers()));
                return book.adopt(listing, owner, at);
            }).emitOn(io.smallrye.mutiny.infrastructure.Infrastructure.getDefaultWorkerPool())
                    // events are Kubernetes calls, which block: never on the event loop the REST clients share
                    .invoke(adopted -> {
                        adopted.lost().forEach(h -> lost(h, book.takers(h.kubernetesNode())));
                        adopted.foreign().forEach(h -> foreign(h, book.owner()));
                    });
        }).onFailure().invoke(e -> LOG.warnf("could not list the holds in Slurm %s: %s", link.endpoint(),
                e.getMessage()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    /** The user colocate holds as in the link's Slurm, asked for only when {@code needed}; the last known otherwise. */
    private static Uni<String> owner(SlurmLink link, boolean needed) {
        return needed || !link.holds().byNode().isEmpty() ? link.slurm().holdsUser()
                : Uni.createFrom().item(link.holds().owner());
    }

    /**
     * Looks for lost holds among the jobs that changed since the last look (one call, which Slurm answers with
     * nothing when no job changed): a hold an admin cancelled, or one a node's reboot ended, is seen within a poll,
     * not at the next resync, together with the jobs that took its room. Then lists the holds, and returns the
     * Kubernetes nodes that lost one, to sync at once (their holds are asked for again, at the top of Slurm's queue).
     */
    Uni<List<String>> lostHolds(SlurmLink link) {
        HoldBook book = link.holds();
        if (book.byNode().isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        long since = link.state().jobsAskedAt();
        long now = java.time.Instant.now().getEpochSecond();
        // a second back: Slurm's times are in seconds, and a change in the second of the last ask is not missed
        return link.slurm().jobsChangedSince(since == 0 ? 0 : since - 1).flatMap(changed -> {
            link.state().jobsAskedAt(now);
            if (changed.isEmpty()) {
                return Uni.createFrom().item(List.<String>of());
            }
            return owner(link, true).flatMap(owner -> {
                List<HoldLosses.Loss> losses = HoldLosses.of(book.byNode(), changed.get(),
                        j -> isOwnHold(j, owner));
                if (losses.isEmpty()) {
                    return Uni.createFrom().item(List.<String>of());
                }
                losses.forEach(l -> book.roomTaken(l.kubernetesNode(), l.takers()));
                // a listing of changed jobs may leave out holds that run on: the book takes whole listings only
                return listHolds(link).replaceWith(losses.stream().map(HoldLosses.Loss::kubernetesNode).toList());
            });
        }).onFailure().invoke(e -> LOG.warnf("could not ask Slurm %s for its changed jobs: %s", link.endpoint(),
                e.getMessage()))
                .onFailure().recoverWithItem(List.of());
    }

    private boolean isOwnHold(SlurmJob job, String owner) {
        return SlurmHold.of(job, config.holdsPartition()).filter(h -> owner.equals(h.user())).isPresent();
    }

    private void lost(SlurmHold lost, List<Long> takers) {
        var gn = view.genericNode(lost.kubernetesNode());
        String took = takers.isEmpty() ? "" : "; Slurm job(s) " + takers + " started in its room";
        LOG.warnf("hold %d of %s (%s CPU, %s MB on %s) is gone from Slurm%s; holding the share again",
                lost.jobId(), lost.kubernetesNode(), lost.cpus(), lost.memoryMb(), lost.node(), took);
        if (gn != null) {
            events.record(gn, EventRecorder.Reason.HoldLost, "hold " + lost.jobId() + " (" + lost.cpus() + " CPU, "
                    + lost.memoryMb() + " MB on Slurm node " + lost.node() + ") is gone from Slurm (a node reboot, "
                    + "an admin's scancel?)" + took + "; holding the share again at the top of Slurm's queue");
        }
    }

    private void foreign(SlurmHold job, String owner) {
        String message = "Slurm job " + job.jobId() + " of user " + job.user() + " looks like a colocate hold for "
                + job.kubernetesNode() + " (" + SlurmHold.NAME + " in partition " + config.holdsPartition()
                + ") but colocate holds as " + owner + ": it is not taken for Kubernetes' share and not cancelled; "
                + "it counts as a Slurm job. Close the partition to other users (RootOnly=YES) and ask its owner or "
                + "an admin to cancel it";
        LOG.warn(message);
        var gn = view.genericNode(job.kubernetesNode());
        if (gn != null) {
            events.record(gn, EventRecorder.Reason.ForeignHold, message);
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        leadership.stop();
        subscriptions.forEach(Cancellable::cancel);
        view.stop();
    }

    /** Whether no sync runs or waits, for tests and benchmarks. */
    public boolean idle() {
        return coalescer == null || coalescer.idle();
    }

    /** One poll of every Slurm served; the shared nodes to sync. */
    Uni<List<String>> poll() {
        // resolved once per poll: a pass over every node and the slurmd pods
        Map<String, SharedNode> shared = view.sharedNodes();
        boolean unserved = shared.values().stream().anyMatch(s -> s.namespace() != null && links.of(s).isEmpty());
        return (unserved ? discovery.refresh() : Uni.createFrom().voidItem()).chain(() -> {
            List<Uni<List<String>>> all = links.all().stream().map(l -> poll(l, shared)).toList();
            List<String> unlinked = shared.values().stream().filter(s -> links.of(s).isEmpty())
                    .map(SharedNode::nodeName).toList();
            return all.isEmpty() ? Uni.createFrom().item(unlinked)
                    : Uni.join().all(all).andFailFast().map(lists -> java.util.stream.Stream.concat(
                            lists.stream().flatMap(List::stream), unlinked.stream()).distinct().toList());
        });
    }

    /**
     * One poll of one Slurm: a single nodes() call for all its nodes, plus ping for slurmctld's start time, and in hold
     * mode the jobs that changed (or all holds, after a restart). Returns its shared nodes (those of {@code allShared}
     * it serves) to sync: those whose Slurm side changed or that lost a hold, or all of them when Slurm restarted or
     * became (un)reachable.
     */
    Uni<List<String>> poll(SlurmLink link, Map<String, SharedNode> allShared) {
        SlurmControl slurm = link.slurm();
        SlurmView before = link.state().view();
        boolean unlisted = holdMode() && !link.holds().listed();
        return slurm.ping().flatMap(ping -> slurm.nodes().map(nodes -> new SlurmView(
                        nodes.stream().collect(Collectors.toUnmodifiableMap(SlurmNode::name, n -> n, (a, b) -> a)),
                        null, ping.startedAt())))
                .onFailure().recoverWithItem(e -> new SlurmView(before.nodes(), e.getMessage(), before.startedAt()))
                .flatMap(after -> {
                    // an unreachable view keeps the last start time seen: a restart seen only after an outage (a
                    // crash, then slurmctld back) is a restart too, and the one whose lost holds matter most
                    boolean restarted = after.reachable() && !before.startedAt().equals(after.startedAt())
                            && !before.nodes().isEmpty();
                    if (restarted && holdMode()) {
                        // a crash loses the holds of its last seconds: no grant on the book's word until it is listed
                        link.holds().restarted();
                    }
                    // in hold mode the book learns which holds Slurm lost before the new view shows their room free:
                    // a bind that read that view with the book's old holds would count Slurm's jobs short, grant
                    // only the increment and bind the rest into room nobody holds
                    Uni<List<String>> lostHolds = !after.reachable() || !holdMode() ? Uni.createFrom().item(List.of())
                            : restarted || unlisted ? listHolds(link).replaceWith(List.<String>of()) : lostHolds(link);
                    return lostHolds.flatMap(lost -> {
                        link.state().view(after);
                        Map<String, SharedNode> shared = allShared.entrySet().stream()
                                .filter(e -> e.getValue().slurmKey().equals(link.key()))
                                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                        if (restarted) {
                            // runtime GRES counts are lost when slurmctld restarts, and so are the holds of its last
                            // seconds: re-assert every node
                            LOG.infof("slurmctld of %s restarted (start time %s); re-asserting every node",
                                    link.endpoint(), after.startedAt());
                            shared.keySet().forEach(sync::force);
                        }
                        lost.forEach(sync::force);
                        // a listing may adopt holds of nodes no longer shared (a crash brings back holds cancelled
                        // just before it): their sync cancels them now, not at the next resync
                        List<String> unshared = restarted || unlisted ? link.holds().nodesBeyond(allShared.keySet())
                                : List.of();
                        List<String> changed = java.util.stream.Stream.of(shared.values().stream()
                                .filter(s -> restarted || unlisted || before.reachable() != after.reachable()
                                        || RegistrationRecovery.applies(after.nodes().get(s.alias()))
                                        || !java.util.Objects.equals(before.nodes().get(s.alias()),
                                                after.nodes().get(s.alias())))
                                .map(SharedNode::nodeName), lost.stream(), unshared.stream())
                                .flatMap(java.util.function.Function.identity()).distinct().toList();
                        changed.forEach(sync::touched);
                        // only lowered counts leave jobs held as BadConstraints
                        return after.reachable() && !holdMode() ? releaseHeld(slurm, after, shared).replaceWith(changed)
                                : Uni.createFrom().item(changed);
                    });
                });
    }

    /**
     * Releases pending jobs that Slurm held as BadConstraints when a lowered count left them too little, once some
     * shared node's count would fit them again: Slurm keeps such jobs held (priority 0) even after the count rises.
     */
    Uni<Void> releaseHeld(SlurmControl slurm, SlurmView view, Map<String, SharedNode> shared) {
        return slurm.heldJobs(BAD_CONSTRAINTS).flatMap(held -> {
            List<Long> fit = held.stream().filter(j -> fitsSomewhere(j, view, shared)).map(SlurmJob::id).toList();
            if (fit.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            LOG.infof("releasing jobs %s held as BadConstraints: they fit again", fit);
            return slurm.release(fit);
        }).onFailure().invoke(e -> LOG.warnf("could not release held jobs: %s", e.getMessage()))
                .onFailure().recoverWithNull().replaceWithVoid();
    }

    static boolean fitsSomewhere(SlurmJob job, SlurmView view, Map<String, SharedNode> shared) {
        Map<String, Long> wants = Gres.parse(job.tresPerNode());
        long cpu = wants.getOrDefault(SlurmNode.K8S_CPU, 0L);
        long mem = wants.getOrDefault(SlurmNode.K8S_MEMORY, 0L);
        if (cpu == 0 && mem == 0) {
            return false;
        }
        return shared.values().stream().map(s -> view.nodes().get(s.alias())).filter(java.util.Objects::nonNull)
                .anyMatch(n -> n.gres(SlurmNode.K8S_CPU) >= cpu && n.gres(SlurmNode.K8S_MEMORY) >= mem);
    }
}
