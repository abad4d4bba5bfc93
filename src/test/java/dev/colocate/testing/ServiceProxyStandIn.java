package dev.colocate.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Stands in for kube-proxy, which the mock API server does not run: a Service's cluster IP and port (a loopback
 * address of the test's choosing) forwarded to where the backing server really listens.
 */
public final class ServiceProxyStandIn implements AutoCloseable {

    private final ServerSocket server;

    public ServiceProxyStandIn(String clusterIp, int port, int targetPort) {
        try {
            server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(clusterIp), port));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + clusterIp + ":" + port, e);
        }
        Thread accept = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket in = server.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    pump(in, out);
                    pump(out, in);
                } catch (IOException e) {
                    // closed, or the target refused: the client sees its connection end
                }
            }
        }, "service-proxy-" + clusterIp);
        accept.setDaemon(true);
        accept.start();
    }

    private static void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream()) {
                i.transferTo(o);
            } catch (IOException e) {
                // one side closed
            } finally {
                try {
                    to.close();
                    from.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
