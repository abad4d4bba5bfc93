package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches the product's promise from outside colocate: every 100 ms it reads Slurm with squeue (as an operator would)
 * and the pods from the API server, and counts every instant where, on a shared node, the pods bound there plus
 * Slurm's own jobs (every running job outside the holds partition, whose jobs are Kubernetes' share) need more CPU
 * or memory than the node has. No colocate code computes any of it: requests are summed from the pod specs here.
 *
 * <p>Slurm is read before and after the pods, and a node counts as overcommitted only with the smaller of the two
 * readings: a pod deleted just before its hold is cancelled and a job starts in its place is not a false alarm.
 */
public final class OvercommitSampler implements AutoCloseable {

    /** One shared node: its Kubernetes name, its Slurm name, and what it has. */
    public record Node(String kubernetes, String slurm, long milliCpu, long memoryMb) {
    }

    private record Usage(long milliCpu, long memoryMb) {
    }

    private final SlurmHarness harness;
    private final KubernetesClient client;
    private final List<Node> nodes;
    private final String holdsPartition;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger samples = new AtomicInteger();
    private final AtomicInteger missed = new AtomicInteger();
    /** The highest share of a node's CPUs that pods and Slurm's jobs together held in any sample, in per mille. */
    private final java.util.concurrent.atomic.AtomicLong peakCpuPerMille = new java.util.concurrent.atomic.AtomicLong();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private final Thread thread;

    public OvercommitSampler(SlurmHarness harness, KubernetesClient client, List<Node> nodes, String holdsPartition) {
        this.harness = harness;
        this.client = client;
        this.nodes = nodes;
        this.holdsPartition = holdsPartition;
        this.thread = new Thread(this::run, "overcommit-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop.get()) {
            long start = System.nanoTime();
            try {
                sample();
            } catch (RuntimeException e) {
                // Slurm or the API server did not answer this time: no sample, and it is counted
                missed.incrementAndGet();
            }
            long left = 100 - (System.nanoTime() - start) / 1_000_000;
            if (left > 0) {
                try {
                    Thread.sleep(left);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private void sample() {
        Map<String, Usage> before = slurmJobs();
        List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
        Map<String, Usage> after = slurmJobs();
        for (Node node : nodes) {
            Requested requested = Requested.onNode(pods, node.kubernetes());
            long podCpu = requested.milliCpu();
            long podMb = requested.bytes() / (1024 * 1024);
            Usage b = before.getOrDefault(node.slurm(), new Usage(0, 0));
            Usage a = after.getOrDefault(node.slurm(), new Usage(0, 0));
            long slurmCpu = Math.min(b.milliCpu(), a.milliCpu());
            long slurmMb = Math.min(b.memoryMb(), a.memoryMb());
            peakCpuPerMille.accumulateAndGet((podCpu + slurmCpu) * 1000 / node.milliCpu(), Math::max);
            if (podCpu + slurmCpu > node.milliCpu() || podMb + slurmMb > node.memoryMb()) {
                violations.add(node.kubernetes() + ": pods " + podCpu + "m/" + podMb + " MB + Slurm's jobs "
                        + slurmCpu + "m/" + slurmMb + " MB > " + node.milliCpu() + "m/" + node.memoryMb() + " MB");
            }
        }
        samples.incrementAndGet();
    }

    /** CPUs (in milli) and MB of the running jobs outside the holds partition, by Slurm node. */
    private Map<String, Usage> slurmJobs() {
        Map<String, Usage> usage = new HashMap<>();
        // single-node jobs: %N is the node; %C the CPUs; %m the memory per node, e.g. 1000M or 2G
        for (String line : harness.run("squeue", "-h", "-a", "-t", "R", "-o", "%P|%N|%C|%m").split("\n")) {
            String[] f = line.strip().split("\\|");
            if (f.length < 4 || f[0].equals(holdsPartition)) {
                continue;
            }
            long cpus = Long.parseLong(f[2]);
            long mb = megabytes(f[3]);
            usage.merge(f[1], new Usage(cpus * 1000, mb),
                    (x, y) -> new Usage(x.milliCpu() + y.milliCpu(), x.memoryMb() + y.memoryMb()));
        }
        return usage;
    }

    static long megabytes(String slurm) {
        char unit = slurm.charAt(slurm.length() - 1);
        double value = Double.parseDouble(Character.isDigit(unit) ? slurm : slurm.substring(0, slurm.length() - 1));
        return switch (unit) {
            case 'K' -> (long) Math.ceil(value / 1024);
            case 'G' -> (long) (value * 1024);
            case 'T' -> (long) (value * 1024 * 1024);
            default -> (long) value;
        };
    }

    public int samples() {
        return samples.get();
    }

    /** The samples not taken because Slurm or the API server did not answer. */
    public int missed() {
        return missed.get();
    }

    /** What was measured, for a test's report: samples, missed ones, the fullest node, the overcommits. */
    public String summary() {
        return samples() + " samples (" + missed() + " missed while Slurm or the API server did not answer), fullest "
                + "node at " + peakCpuPerMille.get() / 10.0 + "% of its CPUs, " + violations().size() + " overcommit(s)";
    }

    public List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    @Override
    public void close() {
        stop.set(true);
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
