package dev.colocate.slurm;

/** Slurm credentials are missing, unreadable or refused. Messages never contain a token or a key. */
public class SlurmAuthException extends SlurmException {

    public SlurmAuthException(String message, Throwable cause) {
        this("authenticate", 0, message, cause);
    }

    public SlurmAuthException(String operation, int errorNumber, String message, Throwable cause) {
        super(operation, errorNumber, message, cause);
    }
}
