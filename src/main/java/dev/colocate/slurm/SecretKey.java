package dev.colocate.slurm;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Base64;
import java.util.Optional;

/**
 * One key of one Secret, read through the API: its bytes, or whether the Secret or only the key is missing. Callers
 * throw their own kind of error; neither the bytes nor their encoding ever reach a message.
 *
 * @param secret "ns/name", for messages
 * @param bytes the decoded value; null when the Secret or the key is missing
 * @param secretExists false when there is no such Secret
 */
public record SecretKey(String secret, String key, byte[] bytes, boolean secretExists) {

    /** Reads {@code key} of Secret {@code namespace/name}; API errors propagate as the client throws them. */
    public static SecretKey read(KubernetesClient client, String namespace, String name, String key) {
        Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
        String data = Optional.ofNullable(secret).map(Secret::getData).map(d -> d.get(key)).orElse(null);
        return new SecretKey(namespace + "/" + name, key, data == null ? null : Base64.getDecoder().decode(data),
                secret != null);
    }

    /** True when the key was read. */
    public boolean present() {
        return bytes != null;
    }

    /** "does not exist" or "has no key k", for a message that names the Secret before it. */
    public String missing() {
        return secretExists ? "has no key " + key : "does not exist";
    }

    /** "key k of the Secret ns/name", the source a signer names in its own errors. */
    public String source() {
        return "key " + key + " of the Secret " + secret;
    }
}
