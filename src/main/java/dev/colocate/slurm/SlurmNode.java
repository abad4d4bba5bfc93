package dev.colocate.slurm;

import java.util.Map;
import java.util.Set;

/**
 * One Slurm node as slurmctld reports it, in the units Slurm uses: CPUs and MB.
 *
 * @param state    upper-case state and flags, e.g. {@code IDLE}, {@code MIXED}, {@code DRAIN}, {@code INVALID_REG}
 * @param gres     configured GRES counts by name, e.g. {@code k8scpu -> 8}
 * @param gresUsed GRES counts held by running jobs
 */
public record SlurmNode(String name, Set<String> state, int cpus, long realMemoryMb, int allocCpus,
        long allocMemoryMb, Map<String, Long> gres, Map<String, Long> gresUsed, String reason) {

    public static final String K8S_CPU = "k8scpu";
    public static final String K8S_MEMORY = "k8smemory";

    public SlurmNode {
        state = Set.copyOf(state);
        gres = Map.copyOf(gres);
        gresUsed = Map.copyOf(gresUsed);
        reason = reason == null ? "" : reason;
    }

    /** The configured count of one GRES, 0 when the node has none. */
    public long gres(String name) {
        return gres.getOrDefault(name, 0L);
    }

    /** The count of one GRES that running jobs hold, 0 when none. */
    public long gresUsed(String name) {
        return gresUsed.getOrDefault(name, 0L);
    }

    /** Whether the node is in the given state or carries the given flag. */
    public boolean is(String stateOrFlag) {
        return state.contains(stateOrFlag);
    }
}
