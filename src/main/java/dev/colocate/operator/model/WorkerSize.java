package dev.colocate.operator.model;

import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;

/**
 * The size of a worker group's Slurm nodes: whole CPUs, MB of RealMemory and GPUs ({@value #NVIDIA_GPU}), from the
 * group's limits, or else its requests. slurmd in a pod sees the host's CPUs, so slurm.conf (with
 * SlurmdParameters=config_overrides) is what tells Slurm the node's size.
 */
public record WorkerSize(int cpus, long memoryMb, int gpus) {

    /** The device plugin's GPU resource; a group that asks for it gets that many GPUs per Slurm node (GRES gpu). */
    public static final String NVIDIA_GPU = "nvidia.com/gpu";

    private static final BigDecimal MB = BigDecimal.valueOf(1024L * 1024L);

    /** The size, or empty when the group gives no whole CPU or no memory. */
    public static Optional<WorkerSize> of(WorkerGroupSpec group) {
        ResourceRequirements r = group.getResources();
        if (r == null) {
            return Optional.empty();
        }
        Quantity cpu = pick(r, "cpu");
        Quantity memory = pick(r, "memory");
        if (cpu == null || memory == null) {
            return Optional.empty();
        }
        try {
            int cpus = cpu.getNumericalAmount().setScale(0, RoundingMode.FLOOR).intValueExact();
            long mb = memory.getNumericalAmount().divide(MB, 0, RoundingMode.FLOOR).longValueExact();
            Quantity gpu = pick(r, NVIDIA_GPU);
            int gpus = gpu == null ? 0 : gpu.getNumericalAmount().setScale(0, RoundingMode.FLOOR).intValueExact();
            return cpus >= 1 && mb >= 1 && gpus >= 0 ? Optional.of(new WorkerSize(cpus, mb, gpus)) : Optional.empty();
        } catch (ArithmeticException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Quantity pick(ResourceRequirements r, String name) {
        Quantity limit = get(r.getLimits(), name);
        return limit != null ? limit : get(r.getRequests(), name);
    }

    private static Quantity get(Map<String, Quantity> m, String name) {
        return m == null ? null : m.get(name);
    }
}
