package dev.colocate.copilot;

import dev.colocate.slurm.SlurmNode;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The way back for a node Slurm drained because its k8scpu/k8smemory count changed while jobs held them: pure
 * decisions, taken again at every sync from what Slurm shows, so a copilot restart halfway loses nothing.
 *
 * <p>What Slurm does (gres.c {@code _node_config_validate}, verified on Slurm 22.05): at every registration slurmctld
 * caps the count slurmd reports at the runtime count the copilot wrote, and compares it with the count it accepted at
 * the previous registration ("found"). If they differ while jobs hold the GRES, it sets the node INVALID_REG and
 * DRAIN with the reason {@code gres/k8scpu count changed and jobs are using them (F != R)}, F being the found count,
 * and keeps F. Registrations happen when slurmd starts, on SIGHUP, every 20 pings or so (minutes), and on a resume.
 * Running jobs are not touched; Slurm only starts nothing new there.
 *
 * <p>The recovery, verified on Slurm 22.05 with a job running throughout:
 * <ol>
 * <li>Write the named GRES back to F ({@link RestoreRegistered}). It is safe even when F is more than Kubernetes
 * leaves free, because Slurm starts nothing on a drained node. Resume is refused while the node is INVALID_REG
 * ("Invalid node state transition ... from=INVAL"), and slurmctld never asks an INVALID_REG node to register.</li>
 * <li>Make slurmd register again ({@link AwaitRegistration}): SIGHUP it (the copilot runs the configured command) or
 * restart it. If both counts now match what slurmctld accepted last, it clears INVALID_REG; DRAIN stays. Slurm names
 * only the first GRES that differs and keeps that reason, so when the other one differed too the registration fails
 * silently: the copilot then tries the next likely pair ({@link #registeredCandidates}).</li>
 * <li>Resume ({@link Resume}). Slurm answers a resume by asking slurmd to register again, so the count must still be
 * F then; the share Kubernetes needs is written by the next sync. Resuming at F is safe only if F is no more than the
 * share: otherwise the node stays drained ({@link Hold}) until no job holds the GRES, when the share is written first
 * and the registration that follows the resume accepts it, since no job uses the GRES.</li>
 * </ol>
 * A node drained for any other reason (by an administrator, say) is never resumed by the copilot.
 *
 * <p>It recurs: the next periodic registration drains the node again if the count was changed since and jobs still
 * hold the GRES. Each time the node is drained for a few seconds (one poll, one SIGHUP) and no job is lost.
 */
public final class RegistrationRecovery {

    private static final Pattern COUNT_CHANGED = Pattern.compile(
            "gres/(" + SlurmNode.K8S_CPU + "|" + SlurmNode.K8S_MEMORY + ") count changed and jobs are using them"
                    + " \\((\\d+) != (\\d+)\\)");

    private RegistrationRecovery() {
    }

    /** The next step for one node. */
    public sealed interface Step permits None, RestoreRegistered, AwaitRegistration, Resume, Hold {

        /** What the GenericNode says about the node while this step is pending, or null for {@link None}. */
        String describe();
    }

    /** Not drained by a count change: the ledger's share is written as usual. */
    public record None() implements Step {
        @Override
        public String describe() {
            return null;
        }
    }

    /** Write this count, the one slurmctld accepted last, then ask slurmd to register again. */
    public record RestoreRegistered(SlurmShare share, String gres, long registered) implements Step {
        @Override
        public String describe() {
            return "restoring " + gres + "=" + registered + ", the count slurmd registered, before it registers again";
        }
    }

    /** The count is the registered one; slurmd has to register again before Slurm accepts a resume. */
    public record AwaitRegistration(String gres, long registered) implements Step {
        @Override
        public String describe() {
            return "waiting for slurmd to register again with " + gres + "=" + registered;
        }
    }

    /** Clear DRAIN; write {@code shareFirst} before, when it is not null. */
    public record Resume(SlurmShare shareFirst) implements Step {
        @Override
        public String describe() {
            return "resuming";
        }
    }

    /** Stay drained: resuming now could let Slurm take what Kubernetes holds. */
    public record Hold(String why) implements Step {
        @Override
        public String describe() {
            return why;
        }
    }

    /** Whether the node is one this recovery is about, so that every Slurm poll looks at it again. */
    public static boolean applies(SlurmNode node) {
        return node != null && (node.is("DRAIN") || node.is("INVALID_REG")) && countChanged(node.reason()).isPresent();
    }

    /**
     * @param node    the node as Slurm shows it, or null
     * @param current the counts Slurm has now
     * @param target  the share the ledger wants
     * @param written the shares the copilot wrote to the node, newest first (lost on a copilot restart)
     * @param tried   counts already restored without slurmctld accepting the registration that followed
     */
    public static Step next(SlurmNode node, SlurmShare current, SlurmShare target, List<SlurmShare> written,
            Set<SlurmShare> tried) {
        if (node == null || current == null || !applies(node)) {
            return new None();
        }
        Matcher why = countChanged(node.reason()).orElseThrow();
        String gres = why.group(1);
        long registered = Long.parseLong(why.group(2));
        if (node.is("INVALID_REG")) {
            Optional<SlurmShare> untried = registeredCandidates(gres, registered, current, written, node).stream()
                    .filter(c -> !tried.contains(c)).findFirst();
            if (untried.isEmpty()) {
                return new Hold("kept drained: the counts slurmd registered last are unknown (Slurm names only "
                        + gres + "=" + registered + "); restart the slurmd of " + node.name() + " to finish");
            }
            SlurmShare c = untried.get();
            return c.equals(current) ? new AwaitRegistration(gres, registered) : new RestoreRegistered(c, gres, registered);
        }
        if (current.cpuCores() <= target.cpuCores() && current.memoryMb() <= target.memoryMb()) {
            return new Resume(null);
        }
        if (node.gresUsed(SlurmNode.K8S_CPU) == 0 && node.gresUsed(SlurmNode.K8S_MEMORY) == 0) {
            return new Resume(target);
        }
        return new Hold("kept drained: Slurm registered k8scpu=" + current.cpuCores() + ",k8smemory="
                + current.memoryMb() + ", more than Kubernetes leaves free (" + target.cpuCores() + ","
                + target.memoryMb() + "); it resumes when Kubernetes frees enough or the jobs holding the GRES end");
    }

    /**
     * The counts slurmctld may have accepted at the node's last good registration, most likely first. Slurm's reason
     * names only the first GRES that differs, so the other one is guessed: unchanged; else as in the shares the
     * copilot wrote whose named GRES had the registered count (a registration takes both counts at once); else
     * slurm.conf's, which by colocate's convention are the node's CPUs and RealMemory.
     */
    static List<SlurmShare> registeredCandidates(String gres, long registered, SlurmShare current,
            List<SlurmShare> written, SlurmNode node) {
        boolean cpu = SlurmNode.K8S_CPU.equals(gres);
        Set<SlurmShare> out = new LinkedHashSet<>();
        out.add(cpu ? new SlurmShare(registered, current.memoryMb()) : new SlurmShare(current.cpuCores(), registered));
        written.stream().filter(w -> (cpu ? w.cpuCores() : w.memoryMb()) == registered).forEach(out::add);
        out.add(cpu ? new SlurmShare(registered, node.realMemoryMb()) : new SlurmShare(node.cpus(), registered));
        return List.copyOf(out);
    }

    private static Optional<Matcher> countChanged(String reason) {
        Matcher m = COUNT_CHANGED.matcher(reason == null ? "" : reason);
        return m.find() ? Optional.of(m) : Optional.empty();
    }
}
