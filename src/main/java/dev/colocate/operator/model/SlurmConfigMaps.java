package dev.colocate.operator.model;

import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;

/** The ConfigMap of the rendered configuration files; it holds no key and no password. */
public final class SlurmConfigMaps {

    private SlurmConfigMaps() {
    }

    public static ConfigMap of(SlurmCluster cluster, SlurmFiles.Rendered files) {
        return new ConfigMapBuilder()
                .withNewMetadata().withName(cluster.configMapName()).withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withData(files.files())
                .build();
    }
}
