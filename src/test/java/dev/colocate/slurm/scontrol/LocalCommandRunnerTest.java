package dev.colocate.slurm.scontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A hung Slurm command is killed, not abandoned, and a chatty one cannot fill colocate's memory. */
class LocalCommandRunnerTest {

    @Test
    void aCommandThatOutlivesItsTimeoutIsKilledWithItsChildren() {
        LocalCommandRunner runner = new LocalCommandRunner(Optional.empty(), Duration.ofMillis(500));

        CommandResult r = runner.run(List.of("bash", "-c", "sleep 60 & echo $! ; wait")).await()
                .atMost(Duration.ofSeconds(10));

        assertThat(r.exitCode()).isEqualTo(LocalCommandRunner.TIMED_OUT);
        assertThat(r.stderr()).isEqualTo("bash did not finish within 500 ms and was killed");
        long child = Long.parseLong(r.stdout().strip());
        // the sleep the hung command started goes too (SIGKILL is delivered, then the process reaped)
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
    }

    @Test
    void outputIsKeptUpToItsBoundAndTheRestDropped() {
        LocalCommandRunner runner = new LocalCommandRunner(Optional.empty(), Duration.ofSeconds(20));

        CommandResult r = runner.run(List.of("bash", "-c", "head -c 1000000 /dev/zero | tr '\\0' x; echo err >&2"))
                .await().atMost(Duration.ofSeconds(20));

        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).startsWith("x".repeat(LocalCommandRunner.MAX_OUTPUT))
                .endsWith("[" + (1_000_000 - LocalCommandRunner.MAX_OUTPUT) + " more bytes dropped]");
        assertThat(r.stderr()).isEqualTo("err\n");
    }
}
