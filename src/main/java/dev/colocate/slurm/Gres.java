package dev.colocate.slurm;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Slurm's GRES strings, as nodes report them: {@code k8scpu:8,k8smemory:16000,gpu:a100:2(S:0-1)}; a configured count
 * that is a multiple of 1024 comes as {@code k8smemory:8K} (8192), in {@code scontrol} and slurmrestd alike.
 */
public final class Gres {

    private static final Pattern ENTRY = Pattern.compile(
            "^(?:gres[:/])?([A-Za-z0-9_]+)(?::[^:(]+)*?:(\\d+)([KMGTP]?)(?:\\(.*\\))?$");
    /** The suffixes Slurm writes a configured count with when it is a multiple of 1024 ({@code k8smemory:8K}). */
    private static final String SUFFIXES = "KMGTP";

    private Gres() {
    }

    /** Counts by GRES name, summed over types; entries without a count (e.g. {@code (null)}) are skipped. */
    public static Map<String, Long> parse(String gres) {
        Map<String, Long> counts = new LinkedHashMap<>();
        if (gres == null || gres.isBlank() || gres.equals("(null)") || gres.equals("N/A")) {
            return counts;
        }
        // an index list such as (IDX:0,2) holds commas of its own
        for (String entry : Hostlist.splitTopLevel(gres, '(', ')')) {
            Matcher m = ENTRY.matcher(entry);
            if (m.matches()) {
                long count = Long.parseLong(m.group(2));
                int power = m.group(3).isEmpty() ? 0 : SUFFIXES.indexOf(m.group(3)) + 1;
                for (int i = 0; i < power; i++) {
                    count = Math.multiplyExact(count, 1024L);
                }
                counts.merge(m.group(1), count, Long::sum);
            }
        }
        return counts;
    }

    /** The GRES string that sets Kubernetes' share: both counts, always, since a partial list zeroes the other. */
    public static String kubernetesShare(long cpuCores, long memoryMb) {
        if (cpuCores < 0 || memoryMb < 0) {
            throw new IllegalArgumentException("a GRES count cannot be negative: k8scpu=" + cpuCores
                    + ", k8smemory=" + memoryMb);
        }
        return SlurmNode.K8S_CPU + ":" + cpuCores + "," + SlurmNode.K8S_MEMORY + ":" + memoryMb;
    }
}
