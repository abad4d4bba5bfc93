package dev.colocate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;

/**
 * fabric8's mock API server in CRUD mode, as {@code @WithKubernetesTestServer(crud = true)} runs it, but on its own,
 * for a colocate that runs as a separate process: the one that stands in for the cluster's API server. The colocate
 * CRDs are registered, so that /status is a subresource as on a real cluster.
 */
public final class StandaloneApiServer implements AutoCloseable {

    private final KubernetesMockServer server;
    private final KubernetesClient client;

    /** Listens on loopback, on {@code port} (0: any free port). */
    public StandaloneApiServer(int port) {
        var responses = new HashMap<io.fabric8.mockwebserver.ServerRequest,
                java.util.Queue<io.fabric8.mockwebserver.ServerResponse>>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses), false);
        try {
            server.init(InetAddress.getByName("127.0.0.1"), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        client = server.createClient();
        Crds.apply(client);
    }

    /** The URL to give a client, for example colocate's quarkus.kubernetes-client.api-server-url. */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    public KubernetesClient client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
