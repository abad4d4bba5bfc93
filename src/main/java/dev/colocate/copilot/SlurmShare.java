package dev.colocate.copilot;

/** The GRES counts that tell Slurm how much of a node it may use: whole CPUs and MB (MiB). */
public record SlurmShare(long cpuCores, long memoryMb) {

    /** What is left of capacity after Kubernetes' holdings, rounded down, never negative. */
    public static SlurmShare leftOver(Resources capacity, Resources kubernetes) {
        Resources free = capacity.minus(kubernetes);
        return new SlurmShare(Math.max(0, Math.floorDiv(free.milliCpu(), 1000)),
                Math.max(0, Math.floorDiv(free.bytes(), Resources.MIB)));
    }
}
