package dev.colocate.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

/**
 * fabric8's mock API server in CRUD mode, as {@code @WithKubernetesTestServer(crud = true)} runs it, but on its own,
 * for a colocate that runs as a separate process: the one that stands in for the cluster's API server. The colocate
 * CRDs are registered, so that /status is a subresource as on a real cluster.
 *
 * <p>It can also fail as a real one does: {@link #stall} leaves chosen requests unanswered and unapplied (the writer
 * waits as on a hung connection), and {@link #restart} drops every connection and watch, keeps what is stored, and
 * answers watches that resume from an old resourceVersion with 410 Gone until {@link #forgetNoMore} (a real API
 * server's watch cache does that after a restart).
 */
public final class StandaloneApiServer implements AutoCloseable {

    private final Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    private final FaultyDispatcher dispatcher = new FaultyDispatcher(responses);
    private final int port;
    private KubernetesMockServer server;
    private final KubernetesClient client;

    /** Listens on loopback, on {@code port} (0: any free port). */
    public StandaloneApiServer(int port) {
        server = start(port);
        this.port = server.getPort();
        client = server.createClient();
        Crds.apply(client);
    }

    private KubernetesMockServer start(int onPort) {
        KubernetesMockServer started = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                dispatcher, false);
        try {
            started.init(InetAddress.getByName("127.0.0.1"), onPort);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return started;
    }

    /** The URL to give a client, for example colocate's quarkus.kubernetes-client.api-server-url. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    public KubernetesClient client() {
        return client;
    }

    /**
     * A request's body, left in place for the server (RecordedRequest.getUtf8Body() consumes it, and the CRUD
     * dispatcher then applies an empty patch): what a {@link #stall} predicate reads bodies with.
     */
    public static String body(RecordedRequest request) {
        return request.getBody() == null ? ""
                : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * From now on, requests that match are neither applied nor answered, until the returned stall is lifted. Its
     * {@link Stall#hit} tells whether one arrived.
     */
    public Stall stall(Predicate<RecordedRequest> requests) {
        Stall stall = new Stall(requests);
        dispatcher.stall = stall;
        return stall;
    }

    /**
     * Stops and starts the server on the same port with what it stored: every connection and watch drops, and a watch
     * that resumes from a resourceVersion gets 410 Gone until {@link #forgetNoMore}, so that clients list again.
     */
    public void restart() {
        dispatcher.gone = true;
        server.destroy();
        server = start(port);
    }

    /** Watches resume normally again (a client that listed since then has a resourceVersion the server knows). */
    public void forgetNoMore() {
        dispatcher.gone = false;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }

    /** Requests that wait unanswered. */
    public final class Stall implements AutoCloseable {
        private final Predicate<RecordedRequest> requests;
        private final CountDownLatch hit = new CountDownLatch(1);

        private Stall(Predicate<RecordedRequest> requests) {
            this.requests = requests;
        }

        /** Whether a matching request arrived. */
        public boolean hit() {
            return hit.getCount() == 0;
        }

        /** Requests are served again (those already stalled stay unanswered). */
        @Override
        public void close() {
            if (dispatcher.stall == this) {
                dispatcher.stall = null;
            }
        }
    }

    private static final class FaultyDispatcher extends KubernetesMixedDispatcher {
        volatile Stall stall;
        volatile boolean gone;

        FaultyDispatcher(Map<ServerRequest, Queue<ServerResponse>> responses) {
            super(responses);
        }

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            Stall current = stall;
            if (current != null && current.requests.test(request)) {
                current.hit.countDown();
                // the body never comes within any client's timeout: the caller hangs as on a dead connection
                return new MockResponse().setResponseCode(200).setBodyDelay(Duration.ofHours(1)).setBody("{}");
            }
            String path = request.getPath();
            if (gone && path.contains("watch=true") && path.contains("resourceVersion=")) {
                // as the API server answers a watch from a version its cache no longer has: the watch opens, and its
                // first event is an ERROR with a 410 Status (not an HTTP 410, which clients take for a broken
                // connection and retry as it was)
                return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
                    @Override
                    public void onOpen(WebSocket webSocket, Response response) {
                        webSocket.send("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                                + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
                                + "\"message\":\"too old resource version\"}}");
                        webSocket.close(1000, "");
                    }
                });
            }
            return super.dispatch(request);
        }
    }
}
