package dev.colocate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.copilot.Ledger;
import dev.colocate.copilot.NodeLedger;
import dev.colocate.copilot.Resources;
import dev.colocate.copilot.SlurmShare;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FitTest {

    static Resources res(String cpu, String memory) {
        return Resources.of(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)));
    }

    /** The walkthrough node of DESIGN §1.4: 8 CPUs, Kubernetes 2735m/3417Mi, a 3 CPU / 4000 MB Slurm job. */
    static final NodeLedger WALKTHROUGH = Ledger.compute(res("8", "32Gi"), res("2735m", "3417Mi"),
            Resources.ofSlurm(3, 4000));

    @Test
    void aThreeCpuPodIsRefusedOnTheWalkthroughNodeWithTheAmounts() {
        assertThat(Fit.refusals(WALKTHROUGH, res("3", "1Gi")))
                .containsExactly("Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8");
    }

    @Test
    void aPodThatFillsTheNodeExactlyFits() {
        // 8 - 2.735 - 3 = 2.265 CPUs free
        assertThat(Fit.refusals(WALKTHROUGH, res("2265m", "1Gi"))).isEmpty();
        assertThat(Fit.refusals(WALKTHROUGH, res("2266m", "1Gi"))).hasSize(1);
        assertThat(Fit.fits(WALKTHROUGH, res("2265m", "1Gi"))).isTrue();
        assertThat(Fit.fits(WALKTHROUGH, res("2266m", "1Gi"))).isFalse();
        assertThat(Fit.fits(WALKTHROUGH, res("100m", "25352Mi"))).isFalse();
    }

    @Test
    void memoryIsCheckedOnItsOwn() {
        // 32768 - 3417 - 4000 = 25351 MiB free
        assertThat(Fit.refusals(WALKTHROUGH, res("100m", "25351Mi"))).isEmpty();
        assertThat(Fit.refusals(WALKTHROUGH, res("100m", "25352Mi")))
                .containsExactly("Slurm holds 4000Mi memory, Kubernetes 3417Mi, pod needs 25352Mi, node has 32768Mi");
    }

    @Test
    void bothResourcesAreNamedWhenBothExceed() {
        assertThat(Fit.refusals(WALKTHROUGH, res("4", "30Gi"))).hasSize(2);
    }

    @Test
    void aPodWithoutRequestsFitsEvenAFullNode() {
        NodeLedger full = Ledger.compute(res("8", "32Gi"), res("5", "28Gi"), Resources.ofSlurm(3, 4096));
        assertThat(Fit.refusals(full, Resources.ZERO)).isEmpty();
        assertThat(Fit.refusals(full, res("1m", "0"))).hasSize(1);
    }

    @Test
    void anAlreadyOvercommittedNodeRefusesEverythingThatNeedsMore() {
        NodeLedger over = Ledger.compute(res("8", "32Gi"), res("6", "1Gi"), Resources.ofSlurm(3, 1000));
        assertThat(over.overcommitted()).isTrue();
        assertThat(Fit.refusals(over, res("1m", "1Mi"))).hasSize(1);
    }

    @Test
    void hugeRequestsAreRefusedRatherThanOverflowing() {
        NodeLedger ledger = Ledger.compute(res("8", "32Gi"), res("1", "1Gi"), Resources.ofSlurm(1, 1024));
        Resources huge = new Resources(Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(Fit.refusals(ledger, huge)).hasSize(2);
    }

    @Test
    void aNodeWithoutAllocatableRefusesAnyRequest() {
        NodeLedger empty = Ledger.compute(Resources.ZERO, Resources.ZERO, Resources.ZERO);
        assertThat(Fit.refusals(empty, res("1m", "0"))).hasSize(1);
        assertThat(Fit.priority(empty, Resources.ZERO)).isZero();
    }

    @Test
    void theReserveShareIsRoundedDownAndNeverBelowWhatSlurmHolds() {
        // K + r = 2735m + 2265m = 5 CPUs: 3 whole CPUs left, exactly what the Slurm job holds
        SlurmShare share = Fit.shareWith(WALKTHROUGH, res("2265m", "1Gi"));
        assertThat(share).isEqualTo(new SlurmShare(3, 32768 - 3417 - 1024));
        assertThat(share.cpuCores() * 1000).isGreaterThanOrEqualTo(WALKTHROUGH.slurm().milliCpu());
    }

    @Test
    void priorityPrefersTheNodeWhereThePodLeavesSlurmMoreWholeCpus() {
        NodeLedger busy = Ledger.compute(res("8", "32Gi"), res("2735m", "1Gi"), Resources.ZERO);
        NodeLedger quiet = Ledger.compute(res("8", "32Gi"), res("500m", "1Gi"), Resources.ZERO);
        Resources pod = res("1500m", "1Gi");
        // busy: floor(8 - 4.235) = 3 CPUs left; quiet: floor(8 - 2) = 6
        assertThat(Fit.priority(busy, pod)).isEqualTo(3);
        assertThat(Fit.priority(quiet, pod)).isEqualTo(7);
        assertThat(Fit.priority(WALKTHROUGH, res("3", "1Gi"))).isZero();
    }

    @Test
    void priorityCountsWhatSlurmsJobsHoldAsNotLeftToSlurm() {
        Resources kubernetes = res("235m", "345Mi");
        NodeLedger jobRunning = Ledger.compute(res("8", "32Gi"), kubernetes, res("3", "4000Mi"));
        NodeLedger idle = Ledger.compute(res("8", "32Gi"), kubernetes, Resources.ZERO);
        Resources pod = res("1250m", "1536Mi");
        // running: floor(8 - 1.485) - 3 = 3 free CPUs left; idle: 6
        assertThat(Fit.priority(jobRunning, pod)).isEqualTo(3);
        assertThat(Fit.priority(idle, pod)).isEqualTo(7);
    }
}
