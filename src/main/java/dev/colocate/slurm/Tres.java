package dev.colocate.slurm;

import java.util.Locale;

/** Slurm's TRES strings, as jobs report them: {@code cpu=2,mem=1500M,node=1,billing=2,gres/k8scpu=2}. */
public final class Tres {

    private Tres() {
    }

    /** The {@code cpu=} count, 0 when absent. */
    public static long cpus(String tres) {
        String v = value(tres, "cpu");
        return v == null ? 0 : Long.parseLong(v);
    }

    /** The {@code mem=} amount in MB (Slurm's MB are MiB), 0 when absent; Slurm writes it with a unit, M by default. */
    public static long memoryMb(String tres) {
        String v = value(tres, "mem");
        if (v == null || v.isEmpty()) {
            return 0;
        }
        char unit = Character.toUpperCase(v.charAt(v.length() - 1));
        String digits = Character.isDigit(unit) ? v : v.substring(0, v.length() - 1);
        double amount = Double.parseDouble(digits);
        double mb = switch (unit) {
            case 'K' -> amount / 1024;
            case 'G' -> amount * 1024;
            case 'T' -> amount * 1024 * 1024;
            default -> amount;
        };
        return (long) Math.ceil(mb);
    }

    private static String value(String tres, String key) {
        if (tres == null) {
            return null;
        }
        for (String part : tres.split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0 && part.substring(0, eq).trim().toLowerCase(Locale.ROOT).equals(key)) {
                return part.substring(eq + 1).trim();
            }
        }
        return null;
    }
}
