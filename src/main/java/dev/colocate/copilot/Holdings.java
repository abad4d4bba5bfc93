package dev.colocate.copilot;

/**
 * What the copilot's own holds hold on a Slurm node: their CPUs and memory, and the k8scpu/k8smemory GRES of those
 * that carry them. Slurm counts both among its allocations; the ledger does not count them as Slurm's.
 */
public record Holdings(Resources alloc, Resources gres) {

    public static final Holdings NONE = new Holdings(Resources.ZERO, Resources.ZERO);
}
