package dev.colocate.slurm;

import java.util.Set;

/** A Slurm partition: its name and the nodes it covers. */
public record SlurmPartition(String name, Set<String> nodes) {

    public SlurmPartition {
        nodes = Set.copyOf(nodes);
    }
}
