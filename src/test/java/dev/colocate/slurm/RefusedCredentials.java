package dev.colocate.slurm;

import dev.colocate.testing.KeyFiles;
import dev.colocate.testing.SlurmHarness;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Real Slurm 22.05, and colocate configured with credentials it refuses. Init arg {@code mode}: {@code foreign-key}
 * (tokens minted from a key that is not the cluster's) or {@code expired-token} (a token file whose token expired an
 * hour ago, signed with the right key).
 */
public class RefusedCredentials implements QuarkusTestResourceLifecycleManager {

    static final Path DIR = Path.of("target", "refused-credentials").toAbsolutePath();

    private String mode;

    @Override
    public void init(Map<String, String> args) {
        mode = args.get("mode");
    }

    @Override
    public Map<String, String> start() {
        SlurmHarness slurm = SlurmHarness.ensure(SlurmHarness.Shape.single());
        try {
            Files.createDirectories(DIR);
            if ("foreign-key".equals(mode)) {
                byte[] key = new byte[32];
                new SecureRandom().nextBytes(key);
                Path file = KeyFiles.ownerOnly(Files.write(DIR.resolve("foreign.key"), key));
                return Map.of("colocate.slurm.rest-url", slurm.restUrl(),
                        "colocate.slurm.jwt.key-file", file.toString());
            }
            String expired = SlurmJwt.fromKeyFile(slurm.jwtKey())
                    .mint("slurm", Instant.now().minus(Duration.ofHours(1)), Duration.ofMinutes(5));
            Path file = KeyFiles.ownerOnly(Files.writeString(DIR.resolve("expired.token"), expired));
            return Map.of("colocate.slurm.rest-url", slurm.restUrl(),
                    "colocate.slurm.jwt.token-file", file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void stop() {
        // the harness's shutdown hook stops Slurm once, after every test class
    }
}
