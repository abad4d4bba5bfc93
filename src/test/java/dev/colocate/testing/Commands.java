package dev.colocate.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the test-side shell scripts (Slurm harnesses, the pod runner) and returns their output. */
public final class Commands {

    private Commands() {
    }

    /**
     * Runs {@code command} with {@code env} added, stdin closed and stderr in the output; an exit code other than 0,
     * or no end within {@code timeout}, is an IllegalStateException with the output's last lines.
     */
    public static String run(List<String> command, Map<String, String> env, Duration timeout) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().putAll(env);
            // a token in the environment makes srun use auth/jwt, which slurmd refuses for step launch
            pb.environment().remove("SLURM_JWT");
            Process p = pb.start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in " + timeout);
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ":\n"
                        + tail(text, 40));
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String tail(String text, int lines) {
        List<String> all = text.lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
