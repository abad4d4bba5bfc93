package dev.colocate.operator.model;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * The digest of what a component's pods read at start: the configuration files it reads and the Secrets it mounts.
 * It is an annotation on the pod template, so a change rolls exactly the pods it affects.
 */
public final class ConfigHash {

    private ConfigHash() {
    }

    public static String of(Component component, Map<String, String> files, String... secretNames) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            new TreeMap<>(files).forEach((name, text) -> {
                if (component.reads(name)) {
                    sha.update(name.getBytes(StandardCharsets.UTF_8));
                    sha.update((byte) 0);
                    sha.update(text.getBytes(StandardCharsets.UTF_8));
                    sha.update((byte) 0);
                }
            });
            for (String secret : secretNames) {
                sha.update(("secret:" + secret).getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
