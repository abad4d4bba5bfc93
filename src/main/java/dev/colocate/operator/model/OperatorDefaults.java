package dev.colocate.operator.model;

import dev.colocate.config.OperatorConfig;

/** What the desired state takes from the operator's configuration rather than from a SlurmCluster. */
public record OperatorDefaults(String slurmImage, String clusterDomain) {

    public static OperatorDefaults of(OperatorConfig config) {
        return new OperatorDefaults(config.slurmImage(), config.clusterDomain());
    }
}
