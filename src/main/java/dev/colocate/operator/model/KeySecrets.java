package dev.colocate.operator.model;

import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.Base64;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

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

    /** The HS256 key, and an RSA key (PKCS#8 PEM) for when the cluster signs RS256, now or later. */
    public static Secret jwt(SlurmCluster cluster, byte[] key, String rsaPem) {
        return secret(cluster, cluster.generatedJwtSecretName(), Map.of(SlurmPaths.JWT_KEY_FILE, key,
                SlurmPaths.JWT_RS256_KEY_FILE, rsaPem.getBytes(StandardCharsets.US_ASCII)));
    }

    private static Secret secret(SlurmCluster cluster, String name, String file, byte[] key) {
        return secret(cluster, name, Map.of(file, key));
    }

    private static Secret secret(SlurmCluster cluster, String name, Map<String, byte[]> keys) {
        Map<String, String> data = new TreeMap<>();
        keys.forEach((file, key) -> data.put(file, Base64.getEncoder().encodeToString(key)));
        return new SecretBuilder()
                .withNewMetadata().withName(name).withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withType("Opaque")
                .withData(data)
                .build();
    }
}
