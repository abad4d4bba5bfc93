package dev.colocate.slurm;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/** A Slurm partition: its name, the nodes it covers, and who may submit to it. */
public record SlurmPartition(String name, Set<String> nodes, Access access) {

    /** Who may submit to a partition, as slurmrestd shows it. */
    public enum Access {
        /** Only root and SlurmUser ({@code RootOnly=YES}), or the members of {@code AllowGroups}. */
        CLOSED,
        /** Every Slurm user. */
        OPEN,
        /** slurmrestd does not say: v0.0.42 (Slurm 24.11) lists no partition flags. */
        UNSHOWN
    }

    public SlurmPartition {
        nodes = Set.copyOf(nodes);
    }

    public SlurmPartition(String name, Set<String> nodes) {
        this(name, nodes, Access.UNSHOWN);
    }

    /**
     * @param flags         the partition's flags as slurmrestd lists them ({@code root_only}, {@code ROOT_ONLY}), or
     *                      null where it lists none
     * @param allowedGroups its {@code AllowGroups}, empty or null for all
     */
    public static Access access(List<String> flags, String allowedGroups) {
        if (allowedGroups != null && !allowedGroups.isBlank()) {
            return Access.CLOSED;
        }
        if (flags == null) {
            return Access.UNSHOWN;
        }
        return flags.stream().anyMatch(f -> f.toUpperCase(Locale.ROOT).equals("ROOT_ONLY")) ? Access.CLOSED
                : Access.OPEN;
    }
}
