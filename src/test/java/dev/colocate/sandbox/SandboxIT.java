package dev.colocate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.testing.KubeHarness;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's first command, run as a newcomer would but with --once: src/main/local/run.sh starts real Slurm, the
 * real control plane, colocate as the chart's ServiceAccount and the chart's kube-scheduler, replays the walkthrough,
 * and stops everything. It runs on this build's classes (--no-build: a nested mvn package would rewrite target/ under
 * the running tests), in Slurm and Kubernetes directories of its own, and in a network namespace of its own (only its
 * loopback, with one more address for the colocate Service's endpoint, and a default route, without which a Service's
 * ClusterIP is unreachable before kube-proxy's rules could rewrite it): its kube-proxy's nftables rules and its ports
 * then meet neither the tests' control plane nor a sandbox someone left running.
 */
@Tag("slurm")
@Tag("kube")
class SandboxIT {

    static final String SLURM_DIR = "/tmp/colocate-slurm-sandbox-it";
    static final String KUBE_DIR = "/tmp/colocate-kube-sandbox-it";
    /** colocate's endpoint, an address of the namespace's loopback; the API server refuses 127.0.0.0/8 endpoints. */
    static final String ADDRESS = "10.214.0.1";

    @Test
    void walkthroughShowsTheLedgerThePendingJobAndTheRefusedPod() throws Exception {
        // the binaries are built (or found cached) and the host's packages installed out here, by the tests' own
        // control plane: the sandbox's namespace reaches no network
        KubeHarness.ensure();
        ProcessBuilder sandbox = new ProcessBuilder("unshare", "--net", "sh", "-c",
                "ip link set lo up && ip addr add " + ADDRESS + "/32 dev lo && ip route add default dev lo"
                        + " && exec \"$@\"", "netns",
                "bash", "src/main/local/run.sh", "--once", "--no-build").redirectErrorStream(true);
        sandbox.environment().remove("KUBECONFIG");
        sandbox.environment().putAll(Map.of(
                "SANDBOX_CLASSPATH", System.getProperty("java.class.path"),
                "SANDBOX_ADDRESS", ADDRESS, "KUBE_DIR", KUBE_DIR,
                "SLURM_DIR", SLURM_DIR, "CTLD_PORT", "26817", "REST_PORT", "26820", "SLURMD_PORT_BASE", "27001"));
        Process process = sandbox.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(process.exitValue()).as(output).isZero();
        List<String> lines = output.lines().toList();
        // kubectl's own tables: one replica, then two (the copilot walkthrough's numbers), and the busy node2
        assertThat(lines).as(output)
                .anyMatch(row("node-a", "node1", "0", "0", "1735m", "2393Mi"))
                .anyMatch(row("node-a", "node1", "3", "4000Mi", "2735m", "3417Mi"))
                .anyMatch(row("node-b", "node2", "7", "8000Mi", "735m", "1369Mi"));
        // both replicas of web run on node-a, bound through colocate
        assertThat(lines.stream().filter(l -> l.matches("web-\\S+\\s+1/1\\s+Running\\s+.*\\snode-a\\s.*")))
                .as(output).hasSizeGreaterThanOrEqualTo(2);
        // squeue: the second 3-CPU job waits for resources
        assertThat(lines).as(output).anyMatch(l -> l.matches("\\s+\\d+\\s+debug\\s+wrap\\s+root\\s+PD\\s+.*\\(Resources\\)"));
        // kubectl describe: kube-scheduler's event names colocate's reason for each node
        assertThat(lines).as(output)
                .anyMatch(l -> l.contains("FailedScheduling") && l.contains("0/2 nodes are available"))
                .anyMatch(l -> l.endsWith("Overcommitted: node-a=False node-b=False"));
        assertThat(output).contains("Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8")
                .contains("Slurm holds 7 CPU, Kubernetes 735m, pod needs 3, node has 8");
        assertThat(output).doesNotContain("Exception").doesNotContain("\tat ");

        // nothing it started is left running
        for (String dir : List.of(SLURM_DIR, KUBE_DIR)) {
            Process left = new ProcessBuilder("pgrep", "-f", dir).start();
            String survivors = new String(left.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            left.waitFor();
            assertThat(survivors).as("processes of " + dir).isBlank();
        }
    }

    /** A row of kubectl get genericnode: the node, its Slurm alias, then Slurm's and Kubernetes' share. */
    private static Predicate<String> row(String node, String alias, String slurmCpu, String slurmMemory,
            String kubeCpu, String kubeMemory) {
        String allocated = "[{\"allocated\":{\"cpu\":\"" + slurmCpu + "\",\"memory\":\"" + slurmMemory
                + "\"},\"type\":\"Slurm\"},{\"allocated\":{\"cpu\":\"" + kubeCpu + "\",\"memory\":\""
                + kubeMemory + "\"},\"type\":\"Kubernetes\"}]";
        return l -> l.matches(node + "\\s+external\\s+" + alias + "\\s+Slurm\\s+" + Pattern.quote(allocated)
                + "\\s*");
    }
}
