package dev.colocate;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;

/**
 * Points colocate at a slurmrestd that does not exist: a valid key, and a loopback port nothing listens on. For
 * component tests that must run without Slurm and see how colocate reports its absence.
 */
public class UnreachableSlurm implements QuarkusTestResourceLifecycleManager {

    private Path key;

    @Override
    public Map<String, String> start() {
        try {
            key = Files.createTempFile("colocate-test", ".key");
            byte[] bytes = new byte[32];
            new SecureRandom().nextBytes(bytes);
            Files.write(key, bytes);
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            return Map.of("colocate.slurm.rest-url", "http://127.0.0.1:" + port,
                    "colocate.slurm.jwt.key-file", key.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        try {
            Files.deleteIfExists(key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
