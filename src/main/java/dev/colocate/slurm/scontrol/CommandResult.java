package dev.colocate.slurm.scontrol;

/** What a finished command printed and how it exited. */
public record CommandResult(int exitCode, String stdout, String stderr) {

    /** The most telling line of output for an error message. */
    public String message() {
        String text = !stderr.isBlank() ? stderr : stdout;
        return text.isBlank() ? "exit code " + exitCode : text.strip();
    }
}
