package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.JwtKeys;
import dev.colocate.operator.model.KeySecrets;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/**
 * The generated JWT keys, {@code <cluster>-jwt}: the HS256 key, and an RSA key for RS256 (made along, so that a
 * cluster can switch to RS256 without a new Secret), which colocate signs with.
 */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class JwtSecretDependent extends GeneratedKeySecretDependent {

    @Override
    int keyBytes() {
        return KeySecrets.JWT_KEY_BYTES;
    }

    @Override
    Secret build(SlurmCluster cluster, byte[] key) {
        return KeySecrets.jwt(cluster, key, JwtKeys.newPem());
    }

    @Override
    boolean generated(SlurmCluster cluster) {
        return cluster.jwtSecretName().equals(cluster.generatedJwtSecretName());
    }
}
