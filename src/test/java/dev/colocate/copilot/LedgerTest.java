package dev.colocate.copilot;

import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class LedgerTest {

    static final Resources EIGHT_CPU_32GI = Resources.of(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32Gi")));
    static final Predicate<Pod> NO_SLURMD = p -> false;

    private static SlurmNode slurmNode(int allocCpus, long allocMb, long gresCpu, long gresMb) {
        return new SlurmNode("node1", Set.of("MIXED"), 8, 32768, allocCpus, allocMb,
                Map.of("k8scpu", 5L, "k8smemory", 29351L), Map.of("k8scpu", gresCpu, "k8smemory", gresMb), "");
    }

    @Test
    void theWalkthroughNode() {
        List<Pod> pods = List.of(
                aPod("daemonset-agent").on("node-a").requesting("735m", "345Mi").obj(),
                aPod("web-0").on("node-a").requesting("1", "2048Mi").obj(),
                aPod("web-1").on("node-a").requesting("1", "1Gi").obj());

        Resources k = Ledger.kubernetes(pods, List.of());
        NodeLedger ledger = Ledger.compute(EIGHT_CPU_32GI, k, Ledger.slurm(slurmNode(3, 4000, 3, 4000), Holdings.NONE));

        assertThat(k.asQuantities()).isEqualTo(Map.of("cpu", new Quantity("2735m"), "memory", new Quantity("3417Mi")));
        assertThat(ledger.slurm().asQuantities()).isEqualTo(Map.of("cpu", new Quantity("3"),
                "memory", new Quantity("4000Mi")));
        // floor(8 - 2.735) CPUs and 32768 - 3417 MiB are left for Slurm
        assertThat(ledger.share()).isEqualTo(new SlurmShare(5, 29351));
        assertThat(ledger.overcommitted()).isFalse();
    }

    @Test
    void aSlurmNodeLargerThanTheAllocatableKeepsTheDifferenceForTheKubelet() {
        SlurmNode eightCpus32000 = new SlurmNode("node1", Set.of("IDLE"), 8, 32000, 0, 0, Map.of(), Map.of(), "");
        Resources allocatable = Resources.of(Map.of("cpu", new Quantity("7"), "memory", new Quantity("30Gi")));

        // 30Gi is 30720 MiB: Slurm's 32000 MB leave 1280 MB and one CPU that the kubelet reserved
        assertThat(Ledger.kubeletReserve(allocatable, eightCpus32000)).isEqualTo(Resources.ofSlurm(1, 1280));
        assertThat(Ledger.kubeletReserve(Resources.of(Map.of("cpu", new Quantity("7500m"), "memory",
                new Quantity("40Gi"))), eightCpus32000)).isEqualTo(new Resources(500, 0));
        // a node whose allocatable is not known yet: nothing is held for it, rather than the whole node
        assertThat(Ledger.kubeletReserve(Resources.ZERO, eightCpus32000)).isEqualTo(Resources.ZERO);
        assertThat(Ledger.kubeletReserve(allocatable, null)).isEqualTo(Resources.ZERO);
    }

    @Test
    void zeroRequestsHoldNothing() {
        Pod besteffort = aPod("be").on("node-a").obj();

        assertThat(PodRequests.of(besteffort)).isEqualTo(Resources.ZERO);
        assertThat(Ledger.compute(EIGHT_CPU_32GI, Ledger.kubernetes(List.of(besteffort), List.of()), Resources.ZERO)
                .share()).isEqualTo(new SlurmShare(8, 32768));
    }

    @Test
    void aLimitWithoutARequestCountsAsTheRequestTheApiServerDefaultsTo() {
        assertThat(PodRequests.of(aPod("l").on("n").limitedTo("2", "1Gi").obj()))
                .isEqualTo(new Resources(2000, 1L << 30));
        assertThat(PodRequests.of(aPod("r").on("n").requesting("250m", null).obj()))
                .isEqualTo(new Resources(250, 0));
    }

    @Test
    void initContainersCountAtTheirPeakAndSidecarsForTheWholeLife() {
        Pod pod = aPod("p").on("n")
                .initRequesting("3", "100Mi")       // peak alone: 3 CPUs
                .sidecarRequesting("500m", "256Mi") // runs beside everything after it
                .initRequesting("1", "2Gi")         // peak with the sidecar: 1.5 CPUs, 2.25Gi
                .requesting("1", "1Gi")
                .overhead("100m", "64Mi")
                .obj();

        // max(apps 1 + sidecar 0.5 = 1.5, init peak 3) + overhead 0.1 = 3.1 CPUs;
        // max(1Gi + 256Mi, 2Gi + 256Mi) + 64Mi = 2368Mi
        assertThat(PodRequests.of(pod)).isEqualTo(new Resources(3100, 2368L * Resources.MIB));
    }

    /** As the kubelet reports a running container's size during an in-place resize. */
    private static Pod reporting(Pod pod, String cpu, String memory) {
        Map<String, Quantity> size = Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory));
        pod.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName("c0")
                .withNewResources().addToRequests(size).endResources().withAllocatedResources(size).build()));
        return pod;
    }

    @Test
    void aPodResizedInPlaceHoldsTheLargerOfItsSpecAndWhatTheKubeletReports() {
        // grown in its spec: the new size counts at once, before the kubelet applies it
        assertThat(PodRequests.of(reporting(aPod("p").on("n").requesting("2", "1Gi").obj(), "1", "1Gi")))
                .isEqualTo(new Resources(2000, 1024 * Resources.MIB));
        // shrunk in its spec: the old size counts until the kubelet reports the new one
        assertThat(PodRequests.of(reporting(aPod("p").on("n").requesting("1", "1Gi").obj(), "2", "2Gi")))
                .isEqualTo(new Resources(2000, 2048 * Resources.MIB));
        assertThat(PodRequests.of(reporting(aPod("p").on("n").requesting("1", "1Gi").obj(), "1", "1Gi")))
                .isEqualTo(new Resources(1000, 1024 * Resources.MIB));
        // a growth the kubelet refused as infeasible: what runs is what counts
        Pod refused = reporting(aPod("p").on("n").requesting("16", "1Gi").obj(), "1", "1Gi");
        refused.getStatus().setConditions(List.of(new PodConditionBuilder().withType("PodResizePending")
                .withStatus("True").withReason("Infeasible").build()));
        assertThat(PodRequests.of(refused)).isEqualTo(new Resources(1000, 1024 * Resources.MIB));
    }

    @Test
    void fractionalCpusRoundUpToTheMilliAndTheShareRoundsDown() {
        Pod tiny = aPod("tiny").on("n").requesting("0.0001", "1").obj();

        assertThat(PodRequests.of(tiny)).isEqualTo(new Resources(1, 1));
        NodeLedger ledger = Ledger.compute(EIGHT_CPU_32GI, PodRequests.of(tiny), Resources.ZERO);
        assertThat(ledger.share()).as("one milli-CPU and one byte cost Slurm a whole CPU and MiB")
                .isEqualTo(new SlurmShare(7, 32767));
    }

    @Test
    void hugeValuesStayExact() {
        Resources big = Resources.of(Map.of("cpu", new Quantity("100000"), "memory", new Quantity("64Ti")));
        List<Pod> many = java.util.stream.IntStream.range(0, 3000)
                .mapToObj(i -> aPod("p" + i).on("n").requesting("33m", "21Gi").obj()).toList();

        Resources k = Ledger.kubernetes(many, List.of());
        assertThat(k).isEqualTo(new Resources(99_000, 3000L * 21 * (1L << 30)));
        assertThat(Ledger.compute(big, k, Resources.ZERO).share()).isEqualTo(new SlurmShare(100_000 - 99, 64L * 1024 * 1024 - 3000L * 21 * 1024));
    }

    @Test
    void finishedUnboundOtherNodesAndTheSlurmdPodDoNotCount() {
        Predicate<Pod> slurmd = p -> "slurmd".equals(p.getMetadata().getLabels().get("colocate.dev/component"));

        assertThat(Ledger.counts(aPod("run").on("node-a").obj(), "node-a", slurmd)).isTrue();
        assertThat(Ledger.counts(aPod("pending").phase("Pending").on("node-a").obj(), "node-a", slurmd))
                .as("bound but not started yet: it holds its requests").isTrue();
        assertThat(Ledger.counts(aPod("done").phase("Succeeded").on("node-a").obj(), "node-a", slurmd)).isFalse();
        assertThat(Ledger.counts(aPod("failed").phase("Failed").on("node-a").obj(), "node-a", slurmd)).isFalse();
        assertThat(Ledger.counts(aPod("unbound").phase("Pending").obj(), "node-a", slurmd)).isFalse();
        assertThat(Ledger.counts(aPod("elsewhere").on("node-b").obj(), "node-a", slurmd)).isFalse();
        assertThat(Ledger.counts(aPod("slurmd-0").on("node-a").labelled("colocate.dev/component", "slurmd").obj(),
                "node-a", slurmd)).isFalse();
    }

    @Test
    void reservationsCountAsKubernetes() {
        Resources k = Ledger.kubernetes(List.of(aPod("a").on("n").requesting("1", "1Gi").obj()),
                List.of(new Resources(2000, 1L << 30)));

        assertThat(k).isEqualTo(new Resources(3000, 2L << 30));
    }

    @Test
    void aNodeWithoutAllocatableLeavesSlurmNothingAndShowsTheOvercommit() {
        NodeLedger ledger = Ledger.compute(Resources.of(null),
                PodRequests.of(aPod("a").on("n").requesting("1", "1Gi").obj()), Resources.ZERO);

        assertThat(ledger.share()).isEqualTo(new SlurmShare(0, 0));
        assertThat(ledger.violations()).hasSize(2);
    }

    @Test
    void overcommitNamesTheResourceAndTheAmounts() {
        Resources k = new Resources(6000, 1L << 30);
        NodeLedger ledger = Ledger.compute(EIGHT_CPU_32GI, k, Resources.ofSlurm(3, 4000));

        assertThat(ledger.violations()).containsExactly(
                "cpu: Kubernetes holds 6 and Slurm 3, together 9 of 8");
        assertThat(ledger.share()).isEqualTo(new SlurmShare(2, 31744));
    }

    @Test
    void slurmHoldsTheLargerOfItsGresAndItsAllocation() {
        // a job that bypassed job_submit.lua holds CPUs but no k8s GRES
        assertThat(Ledger.slurm(slurmNode(4, 400, 0, 0), Holdings.NONE)).isEqualTo(Resources.ofSlurm(4, 400));
        assertThat(Ledger.slurm(slurmNode(3, 300, 3, 4000), Holdings.NONE)).isEqualTo(Resources.ofSlurm(3, 4000));
        assertThat(Ledger.slurm(null, Holdings.NONE)).isEqualTo(Resources.ZERO);
    }

    @Test
    void theCopilotsHoldsAreKubernetesShareNotSlurms() {
        // 6 CPUs allocated, 3 of them to the copilot's holds (with their GRES): Slurm's jobs hold 3
        Holdings holds = new Holdings(Resources.ofSlurm(3, 3417), Resources.ofSlurm(3, 3417));
        assertThat(Ledger.slurm(slurmNode(6, 7417, 6, 7417), holds)).isEqualTo(Resources.ofSlurm(3, 4000));
        // holds without GRES leave the GRES row alone
        Holdings noGres = new Holdings(Resources.ofSlurm(3, 3417), Resources.ZERO);
        assertThat(Ledger.slurm(slurmNode(6, 7417, 3, 4000), noGres)).isEqualTo(Resources.ofSlurm(3, 4000));
    }

    @Test
    void podsMovingBetweenPhasesChangeWhatCounts() {
        Pod pod = aPod("moving").phase("Pending").on("node-a").requesting("2", "2Gi").obj();
        assertThat(Ledger.counts(pod, "node-a", NO_SLURMD)).isTrue();
        pod.getStatus().setPhase("Running");
        assertThat(Ledger.counts(pod, "node-a", NO_SLURMD)).isTrue();
        pod.getStatus().setPhase("Succeeded");
        assertThat(Ledger.counts(pod, "node-a", NO_SLURMD)).isFalse();
    }
}
