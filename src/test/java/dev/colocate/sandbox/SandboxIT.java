package dev.colocate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.testing.ColocateProcess;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The README's first command, run as a newcomer would but with --once: src/main/local/run.sh starts real Slurm,
 * the embedded API server, colocate and the stand-in scheduler, replays the walkthrough, and stops everything. It
 * runs on this build's classes (--no-build: a nested mvn package would rewrite target/ under the running tests),
 * in its own Slurm directory and ports, so that it neither meets the test harness's Slurm nor a sandbox someone
 * left running.
 */
@Tag("slurm")
class SandboxIT {

    static final String SLURM_DIR = "/tmp/colocate-slurm-sandbox-it";

    @Test
    void walkthroughShowsTheLedgerThePendingJobAndTheRefusedPod() throws Exception {
        ProcessBuilder sandbox = new ProcessBuilder("bash", "src/main/local/run.sh", "--once", "--no-build",
                "--api-port", String.valueOf(ColocateProcess.freePort()), "--http-port", String.valueOf(ColocateProcess.freePort()))
                .redirectErrorStream(true);
        sandbox.environment().putAll(java.util.Map.of(
                "SANDBOX_CLASSPATH", System.getProperty("java.class.path"),
                "SLURM_DIR", SLURM_DIR, "CTLD_PORT", "26817", "REST_PORT", "26820", "SLURMD_PORT_BASE", "27001"));
        Process process = sandbox.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();

        assertThat(process.exitValue()).as(output).isZero();
        List<String> lines = output.lines().toList();
        // the table after the Deployment: DESIGN §1.3's example, and the busy node2
        assertThat(lines).as(output).contains(
                "node-a   external      node1   Slurm   [{\"allocated\":{\"cpu\":\"3\",\"memory\":\"4000Mi\"},"
                        + "\"type\":\"Slurm\"},{\"allocated\":{\"cpu\":\"2735m\",\"memory\":\"3417Mi\"},"
                        + "\"type\":\"Kubernetes\"}]",
                "node-b   external      node2   Slurm   [{\"allocated\":{\"cpu\":\"6\",\"memory\":\"8000Mi\"},"
                        + "\"type\":\"Slurm\"},{\"allocated\":{\"cpu\":\"235m\",\"memory\":\"345Mi\"},"
                        + "\"type\":\"Kubernetes\"}]");
        // squeue: the second 3-CPU job waits for resources
        assertThat(lines).as(output).anyMatch(l -> l.matches("\\s+\\d+\\s+debug\\s+wrap\\s+root\\s+PD\\s+.*\\(Resources\\)"));
        // filter refuses the 3-CPU pod on both nodes, saying why
        assertThat(lines).as(output)
                .contains("      node-a: Slurm holds 3 CPU, Kubernetes 2735m, pod needs 3, node has 8",
                        "      node-b: Slurm holds 6 CPU, Kubernetes 235m, pod needs 3, node has 8")
                .anyMatch(l -> l.endsWith("Overcommitted: node-a=False node-b=False"));
        assertThat(output).doesNotContain("Exception").doesNotContain("\tat ");

        // nothing it started is left running
        Process left = new ProcessBuilder("pgrep", "-f", SLURM_DIR).start();
        String survivors = new String(left.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        left.waitFor();
        assertThat(survivors).as("processes of " + SLURM_DIR).isBlank();
    }
}
