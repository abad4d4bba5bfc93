package dev.colocate.slurm.scontrol;

import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.SlurmHold;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The salloc and sbatch command lines of a hold, and how to read their answers. Pure. */
public final class HoldCommands {

    /**
     * {@code --priority=TOP}: root may set it, and without it an immediate allocation fails ("insufficient priority")
     * whenever a pending job of higher priority overlaps the node, even in a partition of higher PriorityTier.
     */
    static final String TOP_PRIORITY = "--priority=TOP";
    private static final Pattern GRANTED = Pattern.compile("Granted job allocation (\\d+)");
    private static final Pattern SUBMITTED = Pattern.compile("Submitted batch job (\\d+)");
    private static final Pattern ERROR = Pattern.compile("(?m)^salloc: error: (?:Unable to allocate resources: )?(.*)$");

    private HoldCommands() {
    }

    /**
     * {@code salloc --no-shell --immediate ...}: granted at once or refused. {@code --immediate} takes no value:
     * {@code -I<N>} with N > 1 queues the job and cancels it after N seconds.
     */
    public static List<String> salloc(String salloc, HoldRequest hold) {
        List<String> argv = new ArrayList<>(List.of(salloc, "--no-shell", "--immediate"));
        argv.addAll(common(hold));
        return argv;
    }

    /** {@code sbatch ...} of a hold that waits for room; its script only sleeps, on the node, until cancelled. */
    public static List<String> sbatch(String sbatch, HoldRequest hold) {
        List<String> argv = new ArrayList<>(List.of(sbatch, "--parsable", "--output=/dev/null",
                "--chdir=/tmp"));
        argv.addAll(common(hold));
        argv.add("--wrap=exec sleep infinity");
        return argv;
    }

    private static List<String> common(HoldRequest hold) {
        List<String> argv = new ArrayList<>(List.of(TOP_PRIORITY, "--partition=" + hold.partition(),
                "--nodelist=" + hold.node(), "--nodes=1", "--ntasks=1", "--cpus-per-task=" + hold.cpus(),
                // --mem=0 would be the whole node's memory
                "--mem=" + Math.max(1, hold.memoryMb()), "--time=UNLIMITED", "--job-name=" + SlurmHold.NAME,
                "--comment=" + hold.comment()));
        if (hold.gres() != null) {
            argv.add("--gres=" + hold.gres());
        }
        return argv;
    }

    /** The job id salloc granted, from its stderr, when it did. */
    public static Optional<Long> granted(CommandResult result) {
        Matcher m = GRANTED.matcher(result.stderr() + "\n" + result.stdout());
        return result.exitCode() == 0 && m.find() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
    }

    /** The job id sbatch printed: {@code --parsable} prints {@code 42} or {@code 42;cluster}. */
    public static Optional<Long> submitted(CommandResult result) {
        if (result.exitCode() != 0) {
            return Optional.empty();
        }
        Matcher m = SUBMITTED.matcher(result.stdout());
        if (m.find()) {
            return Optional.of(Long.parseLong(m.group(1)));
        }
        String first = result.stdout().strip().split("[;\\s]", 2)[0];
        return first.matches("\\d+") ? Optional.of(Long.parseLong(first)) : Optional.empty();
    }

    /** Slurm's reason for a refused salloc, e.g. "Requested node configuration is not available". */
    public static String refusal(CommandResult result) {
        Matcher m = ERROR.matcher(result.stderr());
        String last = null;
        while (m.find()) {
            last = m.group(1).strip();
        }
        return last != null ? last : result.message();
    }
}
