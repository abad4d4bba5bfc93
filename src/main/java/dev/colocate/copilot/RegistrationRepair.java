package dev.colocate.copilot;

import dev.colocate.config.CopilotConfig;
import dev.colocate.config.SlurmConfig;
import dev.colocate.copilot.RegistrationRecovery.AwaitRegistration;
import dev.colocate.copilot.RegistrationRecovery.RestoreRegistered;
import dev.colocate.copilot.RegistrationRecovery.Resume;
import dev.colocate.copilot.RegistrationRecovery.Step;
import dev.colocate.slurm.Hostlist;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmException;
import dev.colocate.slurm.scontrol.CommandRunner;
import dev.colocate.slurm.scontrol.LocalCommandRunner;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.jboss.logging.Logger;

/** Carries out the steps {@link RegistrationRecovery} decides: the count write, slurmd's re-registration, resume. */
@ApplicationScoped
public class RegistrationRepair {

    private static final Logger LOG = Logger.getLogger(RegistrationRepair.class);
    /** How often slurmd is asked again while a node waits for its registration. */
    static final Duration ASK_AGAIN = Duration.ofSeconds(30);
    /** How long after asking a registration counts as failed if the node is still INVALID_REG. */
    static final Duration SETTLE = Duration.ofSeconds(3);
    private static final int HISTORY = 16;

    private final SlurmControl slurm;
    private final Optional<String> command;
    private final CommandRunner runner;
    private final Clock clock = Clock.systemUTC();
    /** When slurmd was last asked to register, per node, and with which counts in place. */
    private final Map<String, Asked> asked = new ConcurrentHashMap<>();
    /** Counts restored without slurmctld accepting the registration that followed, per node. */
    private final Map<String, Set<SlurmShare>> tried = new ConcurrentHashMap<>();
    /** The shares written to each node, newest first, to guess the counts Slurm registered. */
    private final Map<String, Deque<SlurmShare>> written = new ConcurrentHashMap<>();

    private record Asked(SlurmShare counts, Instant at) {
    }

    @Inject
    public RegistrationRepair(SlurmControl slurm, CopilotConfig copilot, SlurmConfig slurmConfig) {
        this.slurm = slurm;
        this.command = copilot.slurmdReregisterCommand().filter(c -> !c.isBlank());
        this.runner = new LocalCommandRunner(slurmConfig.scontrol().slurmConf());
    }

    /** Whether the copilot can make a slurmd register again, or has to wait for it to restart. */
    public boolean canAskToRegister() {
        return command.isPresent();
    }

    /** Records a share written to the node. */
    public void written(String alias, SlurmShare share) {
        Deque<SlurmShare> h = written.computeIfAbsent(alias, a -> new ConcurrentLinkedDeque<>());
        if (!share.equals(h.peekFirst())) {
            h.addFirst(share);
            while (h.size() > HISTORY) {
                h.pollLast();
            }
        }
    }

    /** The shares written to the node, newest first. */
    public List<SlurmShare> written(String alias) {
        Deque<SlurmShare> h = written.get(alias);
        return h == null ? List.of() : List.copyOf(h);
    }

    /**
     * The counts already restored on an INVALID_REG node without slurmctld accepting them: those in place when slurmd
     * was asked to register, if it still is INVALID_REG a while later.
     */
    public Set<SlurmShare> tried(String alias, SlurmShare current) {
        Asked a = asked.get(alias);
        Set<SlurmShare> t = tried.computeIfAbsent(alias, x -> ConcurrentHashMap.newKeySet());
        if (a != null && a.counts().equals(current) && a.at().plus(SETTLE).isBefore(clock.instant())) {
            t.add(current);
        }
        return Set.copyOf(t);
    }

    /**
     * Carries out one step on Slurm node {@code alias}.
     *
     * @return the counts Slurm has afterwards
     */
    public Uni<SlurmShare> apply(String alias, Step step, SlurmShare current) {
        if (step instanceof RestoreRegistered restore) {
            SlurmShare s = restore.share();
            return slurm.setKubernetesShare(alias, s.cpuCores(), s.memoryMb())
                    .invoke(() -> written(alias, s))
                    .chain(() -> askToRegister(alias, s, true))
                    .replaceWith(s);
        }
        if (step instanceof AwaitRegistration) {
            return askToRegister(alias, current, false).replaceWith(current);
        }
        if (step instanceof Resume resume) {
            SlurmShare first = resume.shareFirst();
            Uni<Void> write = first == null ? Uni.createFrom().voidItem()
                    : slurm.setKubernetesShare(alias, first.cpuCores(), first.memoryMb());
            return write.invoke(() -> {
                        if (first != null) {
                            written(alias, first);
                        }
                    })
                    .chain(() -> slurm.resume(alias))
                    .invoke(() -> {
                        asked.remove(alias);
                        tried.remove(alias);
                    })
                    .replaceWith(first == null ? current : first);
        }
        return Uni.createFrom().item(current);
    }

    private Uni<Void> askToRegister(String alias, SlurmShare counts, boolean now) {
        if (command.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        Asked last = asked.get(alias);
        if (!now && last != null && last.counts().equals(counts) && last.at().plus(ASK_AGAIN).isAfter(clock.instant())) {
            return Uni.createFrom().voidItem();
        }
        asked.put(alias, new Asked(counts, clock.instant()));
        // the node name is checked against Slurm's syntax, so it cannot carry shell syntax into the command
        Hostlist.requireNodeName(alias);
        String line = command.get().replace("{node}", alias);
        return runner.run(List.of("/bin/sh", "-c", line))
                .map(result -> {
                    if (result.exitCode() != 0) {
                        throw new SlurmException("reregister(" + alias + ")", 0, "`" + line + "` exited with "
                                + result.exitCode() + ": " + result.message(), null);
                    }
                    LOG.infof("asked slurmd of %s to register again", alias);
                    return null;
                });
    }
}
