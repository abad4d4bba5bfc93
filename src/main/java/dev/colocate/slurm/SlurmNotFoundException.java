package dev.colocate.slurm;

/** Slurm has no such node or job. */
public class SlurmNotFoundException extends SlurmException {

    public SlurmNotFoundException(String operation, int errorNumber, String message) {
        super(operation, errorNumber, message, null);
    }
}
