package dev.colocate.slurm;

/** Slurm would not grant an immediate allocation now (no room, busy nodes); the message is Slurm's reason. */
public class SlurmRefusedException extends SlurmException {

    public SlurmRefusedException(String operation, int errorNumber, String message) {
        super(operation, errorNumber, message, null);
    }
}
