package dev.colocate.slurm;

import dev.colocate.testing.KeyFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colocate.config.SlurmConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmTokensTest {

    @TempDir
    Path dir;

    /** A clock the test moves by hand. */
    static final class ManualClock extends Clock {
        Instant now = Instant.parse("2026-12-02T10:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    record Jwt(Optional<Path> keyFile, Optional<Path> tokenFile, Duration lifetime) implements SlurmConfig.Jwt {
        Jwt(Optional<Path> keyFile, Duration lifetime) {
            this(keyFile, Optional.empty(), lifetime);
        }

        @Override
        public String user() {
            return "slurm";
        }
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double exportedExpiry() {
        return registry.get(SlurmTokens.EXPIRY).gauge().value();
    }

    @Test
    void reusesTheTokenUntilFourFifthsOfItsLifetimeThenRenews() throws Exception {
        Path key = KeyFiles.ownerOnly(Files.write(dir.resolve("k"), new byte[32]));
        ManualClock clock = new ManualClock();
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.of(key), Duration.ofMinutes(5)), clock, registry);

        String first = tokens.token();
        assertThat(exportedExpiry()).isEqualTo(Instant.parse("2026-12-02T10:05:00Z").getEpochSecond());
        clock.now = clock.now.plus(Duration.ofMinutes(3).plusSeconds(59));
        assertThat(tokens.token()).isSameAs(first);

        clock.now = clock.now.plusSeconds(1);
        assertThat(tokens.token()).isNotEqualTo(first);
        assertThat(exportedExpiry()).isEqualTo(Instant.parse("2026-12-02T10:09:00Z").getEpochSecond());
    }

    @Test
    void noKeyConfiguredSaysWhichSettingIsMissing() {
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Duration.ofMinutes(5)), new ManualClock(), registry);

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("colocate.slurm.jwt.key-file");
    }

    @Test
    void aStaticTokenFileIsUsedAndItsExpiryExported() throws Exception {
        Path key = KeyFiles.ownerOnly(Files.write(dir.resolve("k"), new byte[32]));
        String token = SlurmJwt.fromKeyFile(key).mint("slurm", Instant.parse("2026-12-02T10:00:00Z"),
                Duration.ofDays(1));
        Path file = KeyFiles.ownerOnly(Files.writeString(dir.resolve("token"), token + "\n"));
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Optional.of(file), Duration.ofMinutes(5)),
                new ManualClock(), registry);

        assertThat(tokens.token()).isEqualTo(token);
        assertThat(exportedExpiry()).isEqualTo(Instant.parse("2026-12-03T10:00:00Z").getEpochSecond());
    }

    @Test
    void aTokenFileWithoutAJwtIsRefusedWithoutQuotingIt() throws Exception {
        Path file = KeyFiles.ownerOnly(Files.writeString(dir.resolve("token"), "s3cr3t-not-a-jwt"));
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Optional.of(file), Duration.ofMinutes(5)),
                new ManualClock(), registry);

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining(file.toString())
                .hasMessageNotContaining("s3cr3t");
    }
}
