package dev.colocate.copilot;

import dev.colocate.events.EventRecorder;
import dev.colocate.api.GenericNode;
import dev.colocate.api.HoldsStatus;
import dev.colocate.config.CopilotConfig;
import dev.colocate.config.SchedulerConfig;
import dev.colocate.copilot.HoldPlanner.Held;
import dev.colocate.copilot.HoldPlanner.Size;
import dev.colocate.copilot.ShareKeeper.ShareRefused.Kind;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmRefusedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Hold mode (the default): Kubernetes' share of a node is a set of Slurm allocations the copilot holds there
 * ({@link SlurmHold}), planned by {@link HoldPlanner}. GRES counts never change, so registration never drains a node,
 * and Slurm keeps the holds in its own job state across slurmctld and slurmd restarts.
 */
public class HoldShareKeeper implements ShareKeeper {

    private static final Logger LOG = Logger.getLogger(HoldShareKeeper.class);
    /** The longest one Slurm step of a sync may take. */
    private static final Duration STEP_TIMEOUT = Duration.ofSeconds(30);
    /** Before the first listing an earlier copilot's holds are unknown, and new ones could duplicate them. */
    static final String NOT_LISTED = "the holds in Slurm have not been listed yet";

    private final SlurmControl slurm;
    private final HoldBook book;
    private final EventRecorder events;
    private final SlurmState state;
    private final CopilotMeters meters;
    private final CopilotConfig config;
    private final SchedulerConfig scheduler;
    /** Each node's need at its last sync, and since when it has been that. */
    private final Map<String, Need> lastNeed = new ConcurrentHashMap<>();
    private final java.time.Clock clock = java.time.Clock.systemUTC();

    private record Need(Size size, java.time.Instant since) {
    }

    public HoldShareKeeper(SlurmControl slurm, HoldBook book, EventRecorder events, SlurmState state,
            CopilotMeters meters, CopilotConfig config, SchedulerConfig scheduler) {
        this.slurm = slurm;
        this.book = book;
        this.events = events;
        this.state = state;
        this.meters = meters;
        this.config = config;
        this.scheduler = scheduler;
    }

    @Override
    public String mode() {
        return "hold";
    }

    @Override
    public Holdings ownHoldings(SharedNode shared) {
        Resources alloc = Resources.ZERO;
        Resources gres = Resources.ZERO;
        for (SlurmHold h : running(shared)) {
            Resources r = Resources.ofSlurm(h.cpus(), h.memoryMb());
            alloc = alloc.plus(r);
            gres = h.withGres() ? gres.plus(r) : gres;
        }
        return new Holdings(alloc, gres);
    }

    /** The node's holds on the Slurm node it maps to now; any elsewhere cover nothing and are cancelled. */
    private List<SlurmHold> here(SharedNode shared) {
        return book.on(shared.nodeName()).stream().filter(h -> h.node().equals(shared.alias())).toList();
    }

    private List<SlurmHold> running(SharedNode shared) {
        return here(shared).stream().filter(SlurmHold::running).toList();
    }

    @Override
    public ShareReport sync(SharedNode shared, GenericNode gn, NodeBooks books, boolean forced) {
        String node = shared.nodeName();
        Size reserve = Size.covering(books.kubeletReserve());
        Size need = Size.covering(books.ledger().kubernetes().plus(books.kubeletReserve()));
        java.time.Instant now = clock.instant();
        Need previous = lastNeed.compute(node, (n, before) -> before != null && before.size().equals(need) ? before
                : new Need(need, now));
        if (books.problem() != null || !book.listed()) {
            return report(shared, need, reserve, books.problem() != null ? books.problem() : NOT_LISTED, null,
                    false);
        }
        SlurmNode slurmNode = books.slurmNode();
        boolean changed = false;
        String problem = null;
        try {
            changed = restoreCounts(gn, shared, slurmNode);
            // compacting right after a change would trim the headroom the next small pod needs, and cost calls
            boolean quiet = books.reservations().isEmpty()
                    && !previous.since().plus(config.holdCompactAfter()).isAfter(now);
            changed |= follow(gn, shared, need, free(slurmNode), quiet);
            changed |= releaseElsewhere(gn, shared);
        } catch (RuntimeException e) {
            problem = e.getMessage();
            events.record(gn, EventRecorder.Reason.HoldFailed, "holds of Slurm node " + shared.alias() + ": "
                    + problem);
        }
        String drained = slurmNode != null && slurmNode.is("DRAIN") ? slurmNode.reason() : null;
        return report(shared, need, reserve, problem, drained, changed);
    }

    /** Runs the planner's steps; a grant Slurm refuses is planned again as if Slurm had no room. */
    private boolean follow(GenericNode gn, SharedNode shared, Size need, Size free, boolean quiet) {
        List<HoldPlanner.Step> steps = HoldPlanner.plan(held(shared), need, free, quiet,
                config.holdMemoryStep());
        for (HoldPlanner.Step step : steps) {
            if (step instanceof HoldPlanner.Grant g) {
                try {
                    grant(shared, g.size(), STEP_TIMEOUT);
                } catch (SlurmRefusedException e) {
                    // what Slurm had free was less than the last poll showed: wait for room instead
                    List<HoldPlanner.Step> retry = HoldPlanner.plan(held(shared), need, Size.ZERO, false, 0);
                    retry.forEach(s -> run(gn, shared, s));
                    return true;
                }
            } else {
                run(gn, shared, step);
            }
        }
        if (quiet) {
            meters.holdWaste(shared.nodeName(), HoldPlanner.sum(held(shared).stream().filter(Held::running).toList())
                    .minus(need));
        }
        return !steps.isEmpty();
    }

    private void run(GenericNode gn, SharedNode shared, HoldPlanner.Step step) {
        if (step instanceof HoldPlanner.Grant g) {
            grant(shared, g.size(), STEP_TIMEOUT);
        } else if (step instanceof HoldPlanner.Queue q) {
            HoldRequest request = request(shared, q.size());
            long id = slurm.queueHold(request).await().atMost(STEP_TIMEOUT);
            book.added(new SlurmHold(id, shared.alias(), shared.nodeName(), q.size().cpus(), q.size().memoryMb(),
                    false, request.withGres(), "Resources", book.owner()));
            meters.holdQueued();
            events.record(gn, EventRecorder.Reason.HoldWaiting, "Slurm has no room on " + shared.alias() + " for "
                    + q.size() + " more for Kubernetes now; hold " + id + " waits at the top priority, and Slurm "
                    + "starts nothing there that would delay it");
        } else if (step instanceof HoldPlanner.Cancel c) {
            cancel(shared.nodeName(), c.jobId());
        }
    }

    private long grant(SharedNode shared, Size size, Duration timeout) {
        HoldRequest request = request(shared, size);
        long id;
        try {
            id = slurm.grantHold(request).await().atMost(timeout);
        } catch (SlurmRefusedException e) {
            meters.holdRefused();
            throw e;
        }
        book.added(new SlurmHold(id, shared.alias(), shared.nodeName(), size.cpus(), size.memoryMb(), true,
                request.withGres(), "None", book.owner()));
        state.update(v -> v.withAllocated(shared.alias(), size.cpus(), size.memoryMb(), request.withGres()));
        meters.holdGranted();
        return id;
    }

    private void cancel(String node, long jobId) {
        SlurmHold hold = book.on(node).stream().filter(h -> h.jobId() == jobId).findFirst().orElse(null);
        slurm.cancel(jobId).await().atMost(STEP_TIMEOUT);
        book.cancelled(node, jobId);
        if (hold != null && hold.running()) {
            state.update(v -> v.withAllocated(hold.node(), -hold.cpus(), -hold.memoryMb(), hold.withGres()));
        }
        meters.holdCancelled();
    }

    /** Holds on another Slurm node than the one the Kubernetes node now maps to cover nothing: cancel them. */
    private boolean releaseElsewhere(GenericNode gn, SharedNode shared) {
        List<SlurmHold> elsewhere = book.on(shared.nodeName()).stream()
                .filter(h -> !h.node().equals(shared.alias())).toList();
        elsewhere.forEach(h -> cancel(shared.nodeName(), h.jobId()));
        if (!elsewhere.isEmpty()) {
            events.record(gn, EventRecorder.Reason.HoldsReleased, "cancelled holds " + ids(elsewhere)
                    + " on Slurm nodes other than " + shared.alias());
        }
        return !elsewhere.isEmpty();
    }

    /**
     * An earlier GRES-mode run lowered the node's counts; hold mode wants them at the node's configuration (its CPUs
     * and RealMemory, colocate's convention). They are written back only while no job holds the GRES: a count changed
     * under jobs that hold it drains the node at its next registration. Until then holds carry no GRES, since the
     * lowered count already keeps Kubernetes' share from GRES-asking jobs.
     */
    private boolean restoreCounts(GenericNode gn, SharedNode shared, SlurmNode n) {
        if (n == null || !countsLowered(n) || n.gresUsed(SlurmNode.K8S_CPU) > 0
                || n.gresUsed(SlurmNode.K8S_MEMORY) > 0) {
            return false;
        }
        slurm.setKubernetesShare(n.name(), n.cpus(), n.realMemoryMb()).await().atMost(STEP_TIMEOUT);
        state.update(v -> v.withShare(n.name(), new SlurmShare(n.cpus(), n.realMemoryMb())));
        events.record(gn, EventRecorder.Reason.CountsRestored, "k8scpu/k8smemory of Slurm node " + n.name()
                + " restored to " + n.cpus() + "/" + n.realMemoryMb() + " (from " + n.gres(SlurmNode.K8S_CPU) + "/"
                + n.gres(SlurmNode.K8S_MEMORY) + "): in hold mode Kubernetes' share is held, not counted");
        return true;
    }

    private static boolean countsLowered(SlurmNode n) {
        return n.gres(SlurmNode.K8S_CPU) > 0 && (n.gres(SlurmNode.K8S_CPU) != n.cpus()
                || n.gres(SlurmNode.K8S_MEMORY) != n.realMemoryMb());
    }

    /** What Slurm could grant on the node now: nothing while it is drained or down. */
    static Size free(SlurmNode n) {
        if (n == null || n.is("DRAIN") || n.is("DOWN") || n.is("FAIL") || n.is("NOT_RESPONDING")) {
            return Size.ZERO;
        }
        long cpus = n.cpus() - n.allocCpus();
        long mem = n.realMemoryMb() - n.allocMemoryMb();
        if (n.gres(SlurmNode.K8S_CPU) > 0 && !countsLowered(n)) {
            cpus = Math.min(cpus, n.gres(SlurmNode.K8S_CPU) - n.gresUsed(SlurmNode.K8S_CPU));
            mem = Math.min(mem, n.gres(SlurmNode.K8S_MEMORY) - n.gresUsed(SlurmNode.K8S_MEMORY));
        }
        return new Size(cpus, mem).atLeastZero();
    }

    private HoldRequest request(SharedNode shared, Size size) {
        SlurmNode n = state.view().nodes().get(shared.alias());
        boolean withGres = n != null && n.gres(SlurmNode.K8S_CPU) > 0 && !countsLowered(n);
        return new HoldRequest(shared.alias(), shared.nodeName(), size.cpus(), size.memoryMb(), withGres,
                config.holdsPartition());
    }

    private List<Held> held(SharedNode shared) {
        return here(shared).stream()
                .map(h -> new Held(h.jobId(), new Size(h.cpus(), h.memoryMb()), h.running())).toList();
    }

    private ShareReport report(SharedNode shared, Size need, Size reserve, String problem, String drained,
            boolean changed) {
        List<SlurmHold> holds = here(shared);
        List<SlurmHold> granted = running(shared);
        Size held = new Size(granted.stream().mapToLong(SlurmHold::cpus).sum(),
                granted.stream().mapToLong(SlurmHold::memoryMb).sum());
        int waiting = holds.size() - granted.size();
        HoldsStatus status = new HoldsStatus(granted.size(), waiting, Resources.ofSlurm(held.cpus(), 0).cpuQuantity(),
                Resources.ofSlurm(0, held.memoryMb()).memoryQuantity(), Resources.ofSlurm(need.cpus(), 0).cpuQuantity(),
                Resources.ofSlurm(0, need.memoryMb()).memoryQuantity(), holds.stream().map(SlurmHold::jobId).toList());
        boolean covered = held.covers(need);
        if (covered) {
            book.roomBack(shared.nodeName());
        }
        List<Long> takers = book.takers(shared.nodeName());
        List<String> violations = covered ? List.of() : List.of("Kubernetes needs " + need + " on Slurm node "
                + shared.alias() + " but Slurm holds only " + held + " for it" + (waiting > 0
                        ? "; a hold waits for Slurm to have room" : "") + (takers.isEmpty() ? ""
                                : "; Slurm job(s) " + takers + " took the room of a lost hold"));
        boolean inLine = covered && problem == null;
        String reason = inLine ? "HeldBySlurm" : problem != null ? "SlurmUnreachable" : "HoldWaiting";
        String message = inLine ? "Slurm holds " + held + " for Kubernetes in " + granted.size() + " hold(s)"
                + (reserve.isZero() ? "" : ", " + reserve + " of it the kubelet's reserve (Slurm node " + shared.alias()
                        + " is larger than the Kubernetes node's allocatable)")
                + (drained != null ? "; Slurm drained the node: " + drained : "")
                : problem != null ? problem : violations.get(0);
        return new ShareReport(inLine, reason, message, problem, drained, violations, null, status, changed);
    }

    private static String ids(List<SlurmHold> holds) {
        return holds.stream().map(h -> String.valueOf(h.jobId())).toList().toString();
    }

    /**
     * The reserve step of a bind is the immediate allocation of the pod's increment: Slurm grants it or refuses it
     * atomically, so no job can slip in between a check and a write.
     */
    @Override
    public Reserve reserve(SharedNode shared, NodeBooks books, Resources request) {
        if (!book.listed()) {
            throw new ShareRefused(Kind.UNREACHABLE, NOT_LISTED);
        }
        List<Held> running = held(shared).stream().filter(Held::running).toList();
        Size increment = Size.covering(books.ledger().kubernetes().plus(books.kubeletReserve()).plus(request))
                .minus(HoldPlanner.sum(running))
                .atLeastZero();
        if (increment.isZero()) {
            return () -> { };
        }
        // memory only: widen a one-CPU hold (granted beside it, the old one cancelled once the pod is bound), so that
        // a pod of 100m and 64Mi does not cost Slurm a whole CPU more
        Held widened = increment.cpus() == 0 ? HoldPlanner.widenable(running) : null;
        Size exact = widened != null ? new Size(1, widened.size().memoryMb() + increment.memoryMb())
                : increment.max(HoldPlanner.MIN_HOLD);
        Size size = HoldPlanner.stepped(exact, config.holdMemoryStep(), free(books.slurmNode()));
        long id;
        try {
            id = grantExactIfStepRefused(shared, size, exact);
        } catch (SlurmRefusedException e) {
            throw new ShareRefused(Kind.NO_ROOM, "Slurm refused a hold of " + exact + " on " + shared.alias()
                    + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // a grant that timed out may still land: the next listing adopts it, and the sync cancels what is extra
            throw new ShareRefused(Kind.UNREACHABLE, "Slurm could not be asked for a hold on " + shared.alias()
                    + ": " + e.getMessage());
        }
        return new Reserve() {
            @Override
            public void undo() {
                cancelQuietly(shared, id, "after a failed bind");
            }

            @Override
            public void committed() {
                if (widened != null) {
                    cancelQuietly(shared, widened.jobId(), "after widening it");
                }
            }
        };
    }

    /**
     * Grants {@code size}; when that is the exact size plus the memory step (sized from the last poll's free room) and
     * Slurm refuses it, grants the exact size instead, as the sync does: the step is headroom, never a reason to
     * refuse a pod that fits.
     */
    private long grantExactIfStepRefused(SharedNode shared, Size size, Size exact) {
        try {
            return grant(shared, size, scheduler.slurmTimeout());
        } catch (SlurmRefusedException e) {
            if (size.equals(exact)) {
                throw e;
            }
            LOG.debugf("Slurm refused a hold of %s on %s with the memory step (%s); asking for %s", size,
                    shared.alias(), e.getMessage(), exact);
            return grant(shared, exact, scheduler.slurmTimeout());
        }
    }

    private void cancelQuietly(SharedNode shared, long id, String when) {
        try {
            cancel(shared.nodeName(), id);
        } catch (RuntimeException e) {
            LOG.warnf("hold %d on %s not cancelled %s (%s); the next sync cancels what is extra", id, shared.alias(),
                    when, e.getMessage());
        }
    }

    @Override
    public void release(String nodeName) {
        lastNeed.remove(nodeName);
        List<SlurmHold> holds = book.on(nodeName);
        for (SlurmHold h : holds) {
            try {
                cancel(nodeName, h.jobId());
            } catch (RuntimeException e) {
                LOG.warnf("hold %d of %s, no longer shared, not cancelled (%s); the next resync tries again",
                        h.jobId(), nodeName, e.getMessage());
            }
        }
        if (!holds.isEmpty()) {
            LOG.infof("cancelled holds %s of %s, which is no longer shared", ids(holds), nodeName);
        }
    }
}
