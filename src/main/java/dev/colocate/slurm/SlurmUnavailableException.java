package dev.colocate.slurm;

/** Slurm could not be reached or did not answer in time; nothing is known about whether a write took effect. */
public class SlurmUnavailableException extends SlurmException {

    public SlurmUnavailableException(String operation, String message, Throwable cause) {
        super(operation, 0, message, cause);
    }
}
