package dev.colocate.copilot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.copilot.HoldPlanner.Cancel;
import dev.colocate.copilot.HoldPlanner.Grant;
import dev.colocate.copilot.HoldPlanner.Held;
import dev.colocate.copilot.HoldPlanner.Queue;
import dev.colocate.copilot.HoldPlanner.Size;
import dev.colocate.copilot.HoldPlanner.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HoldPlannerTest {

    static Size size(long cpus, long mb) {
        return new Size(cpus, mb);
    }

    static Held granted(long id, long cpus, long mb) {
        return new Held(id, size(cpus, mb), true);
    }

    static Held waiting(long id, long cpus, long mb) {
        return new Held(id, size(cpus, mb), false);
    }

    static final Size ROOM = size(8, 32000);

    static Stream<Arguments> plans() {
        return Stream.of(
                Arguments.of("growth: the deficit is granted at once",
                        List.of(granted(1, 1, 345)), size(3, 3417), ROOM, false,
                        List.of(new Grant(size(2, 3072)))),
                Arguments.of("growth with no room: the deficit waits at the top priority",
                        List.of(granted(1, 1, 345)), size(3, 3417), size(1, 30000), false,
                        List.of(new Queue(size(2, 3072)))),
                Arguments.of("growth with no room keeps an identical waiting hold and replaces another",
                        List.of(granted(1, 1, 345), waiting(2, 2, 3072), waiting(3, 1, 10)), size(3, 3417),
                        size(0, 0), false, List.of(new Cancel(3))),
                Arguments.of("growth with room now: grant, then cancel the waiting hold",
                        List.of(granted(1, 1, 345), waiting(2, 2, 3072)), size(3, 3417), ROOM, false,
                        List.of(new Grant(size(2, 3072)), new Cancel(2))),
                Arguments.of("memory-only growth takes the smallest hold Slurm grants: one CPU",
                        List.of(granted(1, 3, 3417)), size(3, 4441), ROOM, false,
                        List.of(new Grant(size(1, 1024)))),
                Arguments.of("memory-only growth widens a one-CPU hold rather than hold another CPU",
                        List.of(granted(1, 2, 3000), granted(2, 1, 417)), size(3, 4441), ROOM, false,
                        List.of(new Grant(size(1, 1441)), new Cancel(2))),
                Arguments.of("memory-only growth with room for no wider hold: queued",
                        List.of(granted(1, 2, 3000), granted(2, 1, 417)), size(3, 4441), size(0, 5000), false,
                        List.of(new Queue(size(1, 1024)))),
                Arguments.of("shrinking cancels what the need can do without, largest first",
                        List.of(granted(1, 1, 345), granted(2, 2, 3072), granted(3, 1, 100)), size(1, 445), ROOM,
                        false, List.of(new Cancel(2))),
                Arguments.of("no pods left: every hold goes",
                        List.of(granted(1, 1, 345), granted(2, 2, 3072)), size(0, 0), ROOM, false,
                        List.of(new Cancel(2), new Cancel(1))),
                Arguments.of("a hold that vanished is granted again",
                        List.of(granted(2, 2, 3072)), size(3, 3417), ROOM, false,
                        List.of(new Grant(size(1, 345)))),
                Arguments.of("compaction when quiet: all holds become one of exactly the need",
                        List.of(granted(1, 3, 3417), granted(2, 1, 1024)), size(3, 4441), ROOM, true,
                        List.of(new Grant(size(3, 4441)), new Cancel(1), new Cancel(2))),
                Arguments.of("compaction with room for less: one hold shrinks by the waste",
                        List.of(granted(1, 3, 3417), granted(2, 1, 1024)), size(3, 4441), size(2, 4000), true,
                        List.of(new Grant(size(2, 3417)), new Cancel(1))),
                Arguments.of("no room to compact: the holds stay",
                        List.of(granted(1, 3, 3417), granted(2, 1, 1024)), size(3, 4441), size(0, 0), true,
                        List.of()),
                Arguments.of("not quiet: no compaction while the need changes",
                        List.of(granted(1, 3, 3417), granted(2, 1, 1024)), size(3, 4441), ROOM, false,
                        List.of()),
                Arguments.of("quiet with too many holds: they merge although none is wasted",
                        List.of(granted(1, 1, 100), granted(2, 1, 100), granted(3, 1, 100), granted(4, 1, 100)),
                        size(4, 400), ROOM, true,
                        List.of(new Grant(size(4, 400)), new Cancel(1), new Cancel(2), new Cancel(3), new Cancel(4))),
                Arguments.of("too many holds and room only for two of them: the two smallest merge",
                        List.of(granted(1, 2, 100), granted(2, 1, 100), granted(3, 1, 100), granted(4, 2, 100)),
                        size(6, 400), size(2, 200), true,
                        List.of(new Grant(size(2, 200)), new Cancel(3), new Cancel(2))),
                Arguments.of("covered and compact: nothing to do",
                        List.of(granted(1, 3, 3417)), size(3, 3417), ROOM, true, List.of()),
                Arguments.of("covered: a waiting hold is no longer needed",
                        List.of(granted(1, 3, 3417), waiting(2, 1, 10)), size(3, 3417), ROOM, false,
                        List.of(new Cancel(2))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plans")
    void plans(String name, List<Held> holds, Size need, Size free, boolean quiet, List<Step> expected) {
        List<Step> steps = HoldPlanner.plan(holds, need, free, quiet, 0);

        assertThat(steps).isEqualTo(expected);
        assertThat(neverUncovered(holds, need, steps)).as("granted holds cover the need after every step").isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("plans")
    void aQuietNodeConvergesToLittleWasteAndFewHolds(String name, List<Held> holds, Size need, Size free,
            boolean quiet, List<Step> expected) {
        if (!free.equals(ROOM)) {
            return; // the bound holds once Slurm has room
        }
        List<Held> now = holds;
        for (int round = 0; round < 10; round++) {
            List<Step> steps = HoldPlanner.plan(now, need, ROOM, true, 256);
            if (steps.isEmpty()) {
                break;
            }
            now = apply(now, steps);
        }
        Size held = HoldPlanner.sum(now.stream().filter(Held::running).toList());
        Size waste = held.minus(need);
        assertThat(held.covers(need)).isTrue();
        assertThat(waste.cpus()).isLessThan(1);
        assertThat(waste.memoryMb()).isLessThanOrEqualTo(need.memoryMb() == 0 && !now.isEmpty() ? 1 : 0);
        assertThat(now).hasSizeLessThanOrEqualTo(HoldPlanner.MAX_HOLDS);
    }

    @org.junit.jupiter.api.Test
    void growthTakesAMemoryStepWhereSlurmHasRoomSoThatSmallPodsCostFewCalls() {
        List<Held> holds = List.of(granted(1, 1, 100));
        assertThat(HoldPlanner.plan(holds, size(1, 101), ROOM, false, 256))
                .containsExactly(new Grant(size(1, 357)), new Cancel(1));
        List<Held> widened = List.of(granted(2, 1, 357));
        assertThat(HoldPlanner.plan(widened, size(1, 110), ROOM, false, 256)).as("the next small pods need no call")
                .isEmpty();
        assertThat(HoldPlanner.plan(holds, size(2, 101), ROOM, false, 256)).containsExactly(new Grant(size(1, 257)));
        assertThat(HoldPlanner.plan(holds, size(2, 101), size(1, 100), false, 256)).as("no room for the step")
                .containsExactly(new Grant(size(1, 1)));
    }

    /** Applies the steps one by one and checks the granted holds cover the need after each. */
    private static boolean neverUncovered(List<Held> holds, Size need, List<Step> steps) {
        List<Held> now = new ArrayList<>(holds);
        boolean coveredBefore = HoldPlanner.sum(now.stream().filter(Held::running).toList()).covers(need);
        for (Step s : steps) {
            now = apply(now, List.of(s));
            boolean covered = HoldPlanner.sum(now.stream().filter(Held::running).toList()).covers(need);
            if (coveredBefore && !covered) {
                return false;
            }
            coveredBefore = covered;
        }
        return true;
    }

    private static List<Held> apply(List<Held> holds, List<Step> steps) {
        List<Held> now = new ArrayList<>(holds);
        long nextId = 100 + now.stream().mapToLong(Held::jobId).max().orElse(0);
        for (Step s : steps) {
            if (s instanceof Grant g) {
                now.add(new Held(nextId++, g.size(), true));
            } else if (s instanceof Queue q) {
                now.add(new Held(nextId++, q.size(), false));
            } else if (s instanceof Cancel c) {
                now.removeIf(h -> h.jobId() == c.jobId());
            }
        }
        return now;
    }
}
