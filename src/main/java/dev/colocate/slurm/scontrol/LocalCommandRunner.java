package dev.colocate.slurm.scontrol;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** Runs commands as local processes, e.g. where colocate shares a host or container with slurmctld. */
public final class LocalCommandRunner implements CommandRunner {

    private final Optional<Path> slurmConf;

    /** @param slurmConf the slurm.conf the tools read (SLURM_CONF); the tools' default when empty */
    public LocalCommandRunner(Optional<Path> slurmConf) {
        this.slurmConf = slurmConf;
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
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
            String out = read(p.getInputStream());
            int code = p.waitFor();
            return new CommandResult(code, out, err.join());
        } catch (IOException e) {
            return new CommandResult(127, "", "cannot run " + argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new CommandResult(130, "", "interrupted");
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String where() {
        return "local process" + slurmConf.map(c -> " (SLURM_CONF=" + c + ")").orElse("");
    }
}
