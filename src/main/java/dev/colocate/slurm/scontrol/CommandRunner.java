package dev.colocate.slurm.scontrol;

import io.smallrye.mutiny.Uni;
import java.util.List;

/** Runs one command, given as an argument list and never through a shell, where Slurm's client tools are. */
public interface CommandRunner {

    /** Runs the command and completes with its result, whatever its exit code. */
    Uni<CommandResult> run(List<String> argv);

    /** Where commands run, for messages. */
    String where();
}
