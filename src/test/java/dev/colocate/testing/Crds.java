package dev.colocate.testing;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.kubernetes.client.KubernetesServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Applies the CRDs the build generated to the (mock) API server, so that /status is a subresource there as on a real
 * cluster: the mock separates status only for CRDs registered with it.
 */
public final class Crds {

    private Crds() {
    }

    /** For {@code @WithKubernetesTestServer(setup = ...)}: the CRDs are there before the operator starts. */
    public static class Setup implements Consumer<KubernetesServer> {
        @Override
        public void accept(KubernetesServer server) {
            apply(server.getClient());
        }
    }

    public static void apply(KubernetesClient client) {
        for (String file : new String[] {"genericnodes.colocate.dev-v1.yml", "slurmclusters.colocate.dev-v1.yml"}) {
            try (InputStream in = Files.newInputStream(Path.of("target", "kubernetes", file))) {
                CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in,
                        CustomResourceDefinition.class);
                client.apiextensions().v1().customResourceDefinitions().resource(crd).createOr(c -> c.update());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
