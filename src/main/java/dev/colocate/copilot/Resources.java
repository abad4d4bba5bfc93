package dev.colocate.copilot;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;

/**
 * CPU and memory in the ledger's units: milli-CPU and bytes. Exact integers, so that sums of many pods never drift.
 */
public record Resources(long milliCpu, long bytes) {

    public static final Resources ZERO = new Resources(0, 0);
    static final long MIB = 1024L * 1024L;

    public Resources plus(Resources o) {
        return new Resources(Math.addExact(milliCpu, o.milliCpu), Math.addExact(bytes, o.bytes));
    }

    public Resources minus(Resources o) {
        return new Resources(Math.subtractExact(milliCpu, o.milliCpu), Math.subtractExact(bytes, o.bytes));
    }

    /** Component-wise maximum: what Kubernetes takes of init containers against app containers. */
    public Resources max(Resources o) {
        return new Resources(Math.max(milliCpu, o.milliCpu), Math.max(bytes, o.bytes));
    }

    /** Whether neither component exceeds the other's. */
    public boolean fitsIn(Resources o) {
        return milliCpu <= o.milliCpu && bytes <= o.bytes;
    }

    /** Slurm's view: whole CPUs and MB (Slurm's MB are MiB). */
    public static Resources ofSlurm(long cpus, long megabytes) {
        return new Resources(Math.multiplyExact(cpus, 1000), Math.multiplyExact(megabytes, MIB));
    }

    /** cpu and memory of a Kubernetes resource list; absent entries are zero. */
    public static Resources of(Map<String, Quantity> list) {
        if (list == null) {
            return ZERO;
        }
        return new Resources(milliCpu(list.get("cpu")), bytes(list.get("memory")));
    }

    /** Milli-CPU rounded up, as Kubernetes counts a request such as {@code 0.0001}. */
    static long milliCpu(Quantity q) {
        return q == null ? 0 : Quantity.getAmountInBytes(q).movePointRight(3).setScale(0, RoundingMode.CEILING)
                .longValueExact();
    }

    /** Bytes rounded up: a fraction of a byte still occupies one. */
    static long bytes(Quantity q) {
        return q == null ? 0 : Quantity.getAmountInBytes(q).setScale(0, RoundingMode.CEILING).longValueExact();
    }

    /** The CPU as a Kubernetes quantity: {@code 3} for whole cores, {@code 2735m} otherwise. */
    public Quantity cpuQuantity() {
        return milliCpu % 1000 == 0 ? new Quantity(String.valueOf(milliCpu / 1000))
                : new Quantity(String.valueOf(milliCpu), "m");
    }

    /** The memory as a Kubernetes quantity: {@code 3417Mi} when whole MiB, bytes otherwise, {@code 0} for none. */
    public Quantity memoryQuantity() {
        if (bytes == 0) {
            return new Quantity("0");
        }
        return bytes % MIB == 0 ? new Quantity(String.valueOf(bytes / MIB), "Mi")
                : new Quantity(BigDecimal.valueOf(bytes).toPlainString());
    }

    /** {@code cpu} and {@code memory} as Kubernetes quantities, for status. */
    public Map<String, Quantity> asQuantities() {
        return new java.util.TreeMap<>(Map.of("cpu", cpuQuantity(), "memory", memoryQuantity()));
    }

    @Override
    public String toString() {
        return cpuQuantity() + " CPU, " + memoryQuantity() + " memory";
    }
}
