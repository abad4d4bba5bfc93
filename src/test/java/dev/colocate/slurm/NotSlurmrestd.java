package dev.colocate.slurm;

import com.sun.net.httpserver.HttpServer;
import dev.colocate.testing.KeyFiles;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * TEST-SIDE STAND-IN for what may sit at colocate.slurm.rest-url instead of slurmrestd: a server that answers every
 * request with an HTML page (a proxy's, a login form), or one that accepts requests and never answers. {@link #mode}
 * picks which.
 */
public class NotSlurmrestd implements QuarkusTestResourceLifecycleManager {

    public enum Mode { HTML, HANG }

    public static volatile Mode mode = Mode.HTML;
    /** The JWT key file colocate is given, for a test that rewrites it. */
    public static volatile Path keyFile;

    private HttpServer server;
    private Path key;
    private int keyBytes = 32;
    private final CountDownLatch stopping = new CountDownLatch(1);

    /** Init arg {@code keyBytes}: how long a key colocate is given (32 by default, a valid HS256 key). */
    @Override
    public void init(Map<String, String> args) {
        keyBytes = Integer.parseInt(args.getOrDefault("keyBytes", "32"));
    }

    @Override
    public Map<String, String> start() {
        try {
            key = KeyFiles.ownerOnly(Files.createTempFile("colocate-test", ".key"));
            byte[] bytes = new byte[keyBytes];
            new SecureRandom().nextBytes(bytes);
            Files.write(key, bytes);
            keyFile = key;
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(Executors.newCachedThreadPool());
            server.createContext("/", exchange -> {
                if (mode == Mode.HANG) {
                    try {
                        stopping.await(10, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    exchange.close();
                    return;
                }
                byte[] page = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Proxy login</body></html>"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
                exchange.sendResponseHeaders(200, page.length);
                exchange.getResponseBody().write(page);
                exchange.close();
            });
            server.start();
            return Map.of("colocate.slurm.rest-url", "http://127.0.0.1:" + server.getAddress().getPort(),
                    "colocate.slurm.jwt.key-file", key.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        stopping.countDown();
        server.stop(0);
        try {
            Files.deleteIfExists(key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
