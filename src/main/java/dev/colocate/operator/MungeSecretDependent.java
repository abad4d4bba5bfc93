package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.KeySecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The generated munge key, {@code <cluster>-munge}. */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class MungeSecretDependent extends GeneratedKeySecretDependent {

    @Override
    int keyBytes() {
        return KeySecrets.MUNGE_KEY_BYTES;
    }

    @Override
    Secret build(SlurmCluster cluster, byte[] key) {
        return KeySecrets.munge(cluster, key);
    }

    @Override
    boolean generated(SlurmCluster cluster) {
        return cluster.mungeSecretName().equals(cluster.generatedMungeSecretName());
    }
}
