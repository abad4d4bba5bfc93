package dev.colocate.slurm;

/**
 * Slurm refused or failed a request. The message is Slurm's own (from the response's {@code errors[]} or scontrol's
 * output), never a bare HTTP status, and never contains a token or a key.
 */
public class SlurmException extends RuntimeException {

    private final String operation;
    private final int errorNumber;

    public SlurmException(String operation, int errorNumber, String message, Throwable cause) {
        super(operation + ": " + message + (errorNumber > 0 ? " (Slurm error " + errorNumber + ")" : ""), cause);
        this.operation = operation;
        this.errorNumber = errorNumber;
    }

    /** What colocate asked, e.g. {@code setKubernetesShare(node1)}. */
    public String operation() {
        return operation;
    }

    /** Slurm's error number, 0 when Slurm gave none. */
    public int errorNumber() {
        return errorNumber;
    }
}
