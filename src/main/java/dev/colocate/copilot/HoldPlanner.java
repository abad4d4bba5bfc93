package dev.colocate.copilot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Decides how one node's holds follow what Kubernetes needs there, with no I/O (DESIGN §3, hold mode). A running
 * Slurm job cannot be resized, so the hold set changes only by granting new holds and cancelling old ones, and the
 * steps of a plan always grant before they cancel: at every instant the granted holds cover the need.
 *
 * <ul>
 * <li>Short: grant the deficit at once when Slurm has room, otherwise queue it at the top priority (a waiting hold
 * keeps Slurm from starting anything that would delay it) and keep an identical hold already waiting. A hold takes at
 * least one CPU, so a deficit of memory only replaces a one-CPU hold by one with the memory added, where there is
 * one.</li>
 * <li>Covered: cancel waiting holds, then every hold the need can do without, largest first.</li>
 * <li>Covered and quiet: compact, so that the waste (held minus needed) ends under one CPU and one MB and the node
 * keeps at most {@value #MAX_HOLDS} holds: replace all holds by one of exactly the need; where Slurm lacks the room
 * for that, shrink one hold, or merge the two smallest; where it lacks even that, leave the holds as they are.</li>
 * </ul>
 */
public final class HoldPlanner {

    /** How many holds a quiet node keeps at most, before the two smallest are merged. */
    public static final int MAX_HOLDS = 3;
    /** The smallest hold Slurm grants: a job takes a CPU, and {@code --mem=0} would mean the whole node. */
    static final Size MIN_HOLD = new Size(1, 1);

    private HoldPlanner() {
    }

    /** Whole CPUs and MB (MiB), as Slurm allocates them. */
    public record Size(long cpus, long memoryMb) {

        public static final Size ZERO = new Size(0, 0);

        /** What covers Kubernetes' requests: CPUs and MiB rounded up. */
        public static Size covering(Resources k) {
            return new Size(Math.max(0, Math.floorDiv(k.milliCpu() + 999, 1000)),
                    Math.max(0, Math.floorDiv(k.bytes() + Resources.MIB - 1, Resources.MIB)));
        }

        public Size plus(Size o) {
            return new Size(cpus + o.cpus, memoryMb + o.memoryMb);
        }

        public Size minus(Size o) {
            return new Size(cpus - o.cpus, memoryMb - o.memoryMb);
        }

        public Size max(Size o) {
            return new Size(Math.max(cpus, o.cpus), Math.max(memoryMb, o.memoryMb));
        }

        /** Whether this is at least the other in both CPUs and memory. */
        public boolean covers(Size o) {
            return cpus >= o.cpus && memoryMb >= o.memoryMb;
        }

        public boolean isZero() {
            return cpus == 0 && memoryMb == 0;
        }

        public Size atLeastZero() {
            return max(ZERO);
        }

        @Override
        public String toString() {
            return cpus + " CPU and " + memoryMb + " MB";
        }
    }

    /** A hold as Slurm has it: granted (running) or waiting for room. */
    public record Held(long jobId, Size size, boolean running) {
    }

    /** One step of a plan. */
    public sealed interface Step permits Grant, Queue, Cancel {
    }

    /** Ask Slurm for a hold it grants at once or refuses. */
    public record Grant(Size size) implements Step {
    }

    /** Ask Slurm for a hold that waits at the top priority until there is room. */
    public record Queue(Size size) implements Step {
    }

    /** Cancel a hold. */
    public record Cancel(long jobId) implements Step {
    }

    /**
     * The steps for one node, in the order they must run.
     *
     * @param holds the node's holds, granted and waiting
     * @param need  what Kubernetes needs there, {@link Size#covering} its requests
     * @param free  what Slurm could grant on the node now (nothing when it is drained or down)
     * @param quiet whether the node's needs have stopped changing, so that compaction may run
     * @param step  memory (MB) a growth takes at least, where Slurm has room: a stream of small pods then costs a
     *              Slurm call per step rather than per pod, and compaction trims the rest once the node is quiet
     */
    public static List<Step> plan(List<Held> holds, Size need, Size free, boolean quiet, long step) {
        List<Held> running = holds.stream().filter(Held::running).toList();
        List<Held> waiting = holds.stream().filter(h -> !h.running()).toList();
        Size deficit = need.minus(sum(running)).atLeastZero();
        List<Step> steps = new ArrayList<>();
        if (!deficit.isZero()) {
            Size grow = deficit.max(MIN_HOLD);
            Held widened = deficit.cpus() == 0 ? widenable(running) : null;
            if (widened != null) {
                // memory only: a one-CPU hold is replaced by one with the memory added, so no CPU is held twice
                Size wide = stepped(new Size(1, widened.size().memoryMb() + deficit.memoryMb()), step, free);
                if (free.covers(wide)) {
                    steps.add(new Grant(wide));
                    steps.add(new Cancel(widened.jobId()));
                    waiting.forEach(w -> steps.add(new Cancel(w.jobId())));
                    return steps;
                }
            }
            if (free.covers(grow)) {
                steps.add(new Grant(stepped(grow, step, free)));
                waiting.forEach(w -> steps.add(new Cancel(w.jobId())));
                return steps;
            }
            boolean kept = false;
            List<Step> cancels = new ArrayList<>();
            for (Held w : waiting) {
                if (!kept && w.size().equals(grow)) {
                    kept = true;
                } else {
                    cancels.add(new Cancel(w.jobId()));
                }
            }
            if (!kept) {
                steps.add(new Queue(grow));
            }
            steps.addAll(cancels);
            return steps;
        }
        waiting.forEach(w -> steps.add(new Cancel(w.jobId())));
        Size excess = sum(running).minus(need);
        List<Held> kept = new ArrayList<>();
        for (Held h : running.stream().sorted(LARGEST_FIRST).toList()) {
            if (excess.covers(h.size())) {
                steps.add(new Cancel(h.jobId()));
                excess = excess.minus(h.size());
            } else {
                kept.add(h);
            }
        }
        if (quiet && !kept.isEmpty()) {
            steps.addAll(compact(kept, need, free));
        }
        return steps;
    }

    /** The hold with {@code step} MB more memory, where Slurm has room for that; as it is otherwise. */
    static Size stepped(Size hold, long step, Size free) {
        Size more = new Size(hold.cpus(), hold.memoryMb() + step);
        return step > 0 && free.covers(more) ? more : hold;
    }

    /**
     * The hold a memory-only growth replaces, one of a single CPU (its replacement then takes no CPU more for good),
     * or null when there is none.
     */
    public static Held widenable(List<Held> running) {
        return running.stream().filter(h -> h.running() && h.size().cpus() == 1)
                .min(Comparator.comparingLong((Held h) -> h.size().memoryMb()).thenComparingLong(Held::jobId))
                .orElse(null);
    }

    private static final Comparator<Held> LARGEST_FIRST = Comparator.comparingLong((Held h) -> h.size().cpus())
            .thenComparingLong(h -> h.size().memoryMb()).reversed().thenComparingLong(Held::jobId);

    /** Replaces some of the holds (which cover the need) by one smaller hold, where Slurm has room for it. */
    private static List<Step> compact(List<Held> holds, Size need, Size free) {
        Size target = need.max(MIN_HOLD);
        Size waste = sum(holds).minus(target).atLeastZero();
        if (waste.cpus() < 1 && waste.memoryMb() < 1 && holds.size() <= MAX_HOLDS) {
            return List.of();
        }
        List<List<Held>> candidates = new ArrayList<>();
        candidates.add(holds);
        holds.stream().sorted(LARGEST_FIRST).map(List::of).forEach(candidates::add);
        if (holds.size() > MAX_HOLDS) {
            List<Held> smallest = holds.stream().sorted(LARGEST_FIRST.reversed()).limit(2).toList();
            candidates.add(smallest);
        }
        for (List<Held> replaced : candidates) {
            Size sum = sum(replaced);
            // sum - waste keeps the need covered: the others plus it hold at least sum(holds) - waste = target
            Size replacement = sum.minus(waste).max(MIN_HOLD);
            boolean gains = replaced.size() > 1 || !replacement.equals(sum) && sum.covers(replacement);
            if (gains && free.covers(replacement)) {
                List<Step> steps = new ArrayList<>();
                steps.add(new Grant(replacement));
                replaced.forEach(h -> steps.add(new Cancel(h.jobId())));
                return steps;
            }
        }
        return List.of();
    }

    static Size sum(List<Held> holds) {
        Size s = Size.ZERO;
        for (Held h : holds) {
            s = s.plus(h.size());
        }
        return s;
    }
}
