package dev.colocate.slurm.scontrol;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands as local processes, e.g. where colocate shares a host or container with slurmctld. A process that
 * outlives its timeout is killed with its descendants, and each output stream is kept up to {@link #MAX_OUTPUT}
 * bytes (the rest is read and dropped, so that a chatty process never blocks on a full pipe).
 */
public final class LocalCommandRunner implements CommandRunner {

    /** Exit code of a killed process, as coreutils' timeout reports it. */
    public static final int TIMED_OUT = 124;
    static final int MAX_OUTPUT = 64 * 1024;
    /** Long enough for any Slurm command against a live controller, short enough to stop a hung one. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Optional<Path> slurmConf;
    private final Duration timeout;

    /** @param slurmConf the slurm.conf the tools read (SLURM_CONF); the tools' default when empty */
    public LocalCommandRunner(Optional<Path> slurmConf) {
        this(slurmConf, DEFAULT_TIMEOUT);
    }

    public LocalCommandRunner(Optional<Path> slurmConf, Duration timeout) {
        this.slurmConf = slurmConf;
        this.timeout = timeout;
    }

    @Override
    public Uni<CommandResult> run(List<String> argv) {
        return Uni.createFrom().item(() -> exec(argv)).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    private CommandResult exec(List<String> argv) {
        ProcessBuilder pb = new ProcessBuilder(argv);
        slurmConf.ifPresent(conf -> pb.environment().put("SLURM_CONF", conf.toString()));
        // with a token in the environment Slurm's tools authenticate by JWT, which slurmd refuses
        pb.environment().remove("SLURM_JWT");
        Process p;
        try {
            p = pb.start();
            p.getOutputStream().close();
        } catch (IOException e) {
            return new CommandResult(127, "", "cannot run " + argv.get(0) + ": " + e.getMessage());
        }
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(p);
                // the pipes close once every process that held them is gone
                return new CommandResult(TIMED_OUT, out.completeOnTimeout("", 2, TimeUnit.SECONDS).join(),
                        argv.get(0) + " did not finish within " + timeout.toMillis() + " ms and was killed");
            }
            return new CommandResult(p.exitValue(), out.join(), err.join());
        } catch (InterruptedException e) {
            kill(p);
            Thread.currentThread().interrupt();
            return new CommandResult(130, "", "interrupted");
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    /**
     * Up to MAX_OUTPUT bytes of the stream; the rest is drained and dropped. A process that is killed closes the
     * stream under the reader: what was read until then is kept.
     */
    private static String read(InputStream in) {
        java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();
        long dropped = 0;
        byte[] buf = new byte[8192];
        try (in) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                int keep = Math.min(n, MAX_OUTPUT - kept.size());
                kept.write(buf, 0, keep);
                dropped += n - keep;
            }
        } catch (IOException e) {
            // killed, or the stream closed: what was read is all there is
        }
        String text = kept.toString(StandardCharsets.UTF_8);
        return dropped == 0 ? text : text + "\n[" + dropped + " more bytes dropped]";
    }

    @Override
    public String where() {
        return "local process" + slurmConf.map(c -> " (SLURM_CONF=" + c + ")").orElse("");
    }
}
