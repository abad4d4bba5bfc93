package dev.colocate.sandbox;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Slurm's own commands against the sandbox's slurmctld, as a user would type them. */
final class Slurm {

    private final String slurmConf;

    Slurm(String slurmConf) {
        this.slurmConf = slurmConf;
    }

    String run(String... command) {
        // 24.11 and 26.05 run in a debootstrap root; their env.sh names the wrapper that runs a command there
        List<String> full = new ArrayList<>();
        String chroot = System.getenv("SLURM_CHROOT_CMD");
        if (chroot != null && !chroot.isBlank()) {
            full.addAll(List.of(chroot.strip().split("\\s+")));
        }
        full.addAll(List.of(command));
        ProcessBuilder builder = new ProcessBuilder(full).redirectErrorStream(true);
        builder.environment().put("SLURM_CONF", slurmConf);
        try {
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output.strip());
            }
            return output;
        } catch (IOException e) {
            throw new IllegalStateException(command[0] + " cannot run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(command[0] + " interrupted");
        }
    }

    String version() {
        return run("sinfo", "--version").strip();
    }

    List<String> nodes() {
        return Arrays.stream(run("sinfo", "-h", "-N", "-o", "%N").split("\\s+")).filter(s -> !s.isBlank())
                .distinct().sorted().toList();
    }

    /** Submits {@code sleep infinity} with the given request and returns the job id. */
    long sbatch(String... options) {
        List<String> command = new ArrayList<>(List.of("sbatch", "--parsable", "-o", "/dev/null"));
        command.addAll(List.of(options));
        command.addAll(List.of("--wrap", "sleep infinity"));
        return Long.parseLong(run(command.toArray(String[]::new)).strip().split(";")[0]);
    }

    /** The job's state and reason, as squeue's %T and %r print them, or "" once it left the queue. */
    String state(long job) {
        return run("squeue", "-h", "-j", String.valueOf(job), "-o", "%T %r").strip();
    }
}
