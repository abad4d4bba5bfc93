package dev.colocate.operator.model;

import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Base64;
import java.util.Map;

/**
 * The Secrets the operator generates when a SlurmCluster names none: the munge key and the JWT key. They are
 * created once and never rewritten, since a new key would lock every running daemon out of the others.
 */
public final class KeySecrets {

    /** munge accepts keys of 32 bytes and more; mungekey's default is 1024 bytes. */
    public static final int MUNGE_KEY_BYTES = 1024;
    /** HS256 wants a key of at least 256 bits. */
    public static final int JWT_KEY_BYTES = 64;

    private KeySecrets() {
    }

    public static Secret munge(SlurmCluster cluster, byte[] key) {
        return secret(cluster, cluster.generatedMungeSecretName(), SlurmPaths.MUNGE_KEY_FILE, key);
    }

    public static Secret jwt(SlurmCluster cluster, byte[] key) {
        return secret(cluster, cluster.generatedJwtSecretName(), SlurmPaths.JWT_KEY_FILE, key);
    }

    private static Secret secret(SlurmCluster cluster, String name, String file, byte[] key) {
        return new SecretBuilder()
                .withNewMetadata().withName(name).withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withType("Opaque")
                .withData(Map.of(file, Base64.getEncoder().encodeToString(key)))
                .build();
    }
}
