package dev.colocate.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latency figures of one measured series, in milliseconds. */
public record Percentiles(String name, int samples, double p50, double p99, double mean) {

    /** Summarises nanosecond samples. */
    public static Percentiles of(String name, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
        return new Percentiles(name, sorted.length, at(sorted, 0.50), at(sorted, 0.99), mean);
    }

    private static double at(long[] sorted, double q) {
        int i = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    public String row() {
        return String.format(Locale.ROOT, "%-48s %6d %9.2f %9.2f %9.2f", name, samples, p50, p99, mean);
    }

    public static String header() {
        return String.format(Locale.ROOT, "%-48s %6s %9s %9s %9s", "series", "n", "p50 ms", "p99 ms", "mean ms");
    }
}
