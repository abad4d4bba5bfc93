package dev.colocate.slurm.scontrol;

import dev.colocate.slurm.Gres;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.Hostlist;
import dev.colocate.slurm.SlurmException;
import dev.colocate.slurm.SlurmMeters;
import dev.colocate.slurm.SlurmNodeWriter;
import dev.colocate.slurm.SlurmRefusedException;
import dev.colocate.slurm.SlurmUnavailableException;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Node writes through scontrol, and holds through salloc and sbatch, for Slurm 22.05, whose REST API has no node
 * update and no allocation. Arguments go to the process as a
 * list and node names are checked against Slurm's syntax first, so no value can become another argument.
 */
public final class ScontrolNodeWriter implements SlurmNodeWriter {

    private final CommandRunner runner;
    private final String scontrol;
    private final String salloc;
    private final String sbatch;
    private final Duration timeout;
    private final SlurmMeters meters;
    private volatile String holdsUser;

    public ScontrolNodeWriter(CommandRunner runner, String scontrol, String salloc, String sbatch, Duration timeout,
            SlurmMeters meters) {
        this.runner = runner;
        this.scontrol = scontrol;
        this.salloc = salloc;
        this.sbatch = sbatch;
        this.timeout = timeout;
        this.meters = meters;
    }

    @Override
    public Uni<Void> setKubernetesShare(String node, long cpuCores, long memoryMb) {
        Hostlist.requireNodeName(node);
        // scontrol accepts a count below what running jobs hold; the caller re-reads gres_used to catch that
        return run("setKubernetesShare(" + node + ")",
                List.of(scontrol, "update", "NodeName=" + node, "Gres=" + Gres.kubernetesShare(cpuCores, memoryMb)));
    }

    @Override
    public Uni<Void> resume(String node) {
        Hostlist.requireNodeName(node);
        return run("resume(" + node + ")", List.of(scontrol, "update", "NodeName=" + node, "State=RESUME"));
    }

    @Override
    public Uni<Void> drain(String node, String reason) {
        Hostlist.requireNodeName(node);
        return run("drain(" + node + ")", List.of(scontrol, "update", "NodeName=" + node, "State=DRAIN",
                "Reason=" + reason));
    }

    @Override
    public Uni<Void> release(List<Long> jobIds) {
        if (jobIds.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        String ids = jobIds.stream().map(String::valueOf).collect(Collectors.joining(","));
        return run("release(" + ids + ")", List.of(scontrol, "release", ids));
    }

    @Override
    public Uni<Long> grantHold(HoldRequest hold) {
        String op = "grantHold(" + hold.node() + ")";
        return timed(op, HoldCommands.salloc(salloc, hold), result -> HoldCommands.granted(result)
                .orElseThrow(() -> result.exitCode() == 1
                        ? new SlurmRefusedException(op, 0, HoldCommands.refusal(result))
                        : new SlurmException(op, 0, "salloc failed in " + runner.where() + ": " + result.message(),
                                null)));
    }

    @Override
    public Uni<Long> queueHold(HoldRequest hold) {
        String op = "queueHold(" + hold.node() + ")";
        return timed(op, HoldCommands.sbatch(sbatch, hold), result -> HoldCommands.submitted(result)
                .orElseThrow(() -> new SlurmException(op, 0, "sbatch failed in " + runner.where() + ": "
                        + result.message(), null)));
    }

    /**
     * The user salloc and sbatch run as where the runner runs them (this process's user, or the slurmctld
     * container's), asked once with {@code id -un}: Slurm gives a job its submitter's user.
     */
    @Override
    public Uni<String> holdsUser() {
        String known = holdsUser;
        if (known != null) {
            return Uni.createFrom().item(known);
        }
        return timed("holdsUser", List.of("id", "-un"), result -> {
            String user = result.stdout().strip();
            if (result.exitCode() != 0 || user.isEmpty()) {
                throw new SlurmException("holdsUser", 0, "id -un failed in " + runner.where() + ": "
                        + result.message(), null);
            }
            holdsUser = user;
            return user;
        });
    }

    private Uni<Void> run(String op, List<String> argv) {
        return timed(op, argv, result -> {
            if (result.exitCode() != 0) {
                throw new SlurmException(op, 0, "scontrol failed in " + runner.where() + ": " + result.message(),
                        null);
            }
            return null;
        });
    }

    private <T> Uni<T> timed(String op, List<String> argv, java.util.function.Function<CommandResult, T> read) {
        // a write that timed out may still take effect, so it is never retried here
        return meters.timed(op, runner.run(argv)
                .ifNoItem().after(timeout).failWith(() -> new SlurmUnavailableException(op,
                        argv.get(0) + " did not finish within " + timeout + " (" + runner.where() + ")", null))
                .map(read));
    }
}
