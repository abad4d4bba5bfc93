package dev.colocate.slurm;

/** Slurm credentials are missing, unreadable or refused. Messages never contain a token or a key. */
public class SlurmAuthException extends RuntimeException {

    public SlurmAuthException(String message, Throwable cause) {
        super(message, cause);
    }
}
