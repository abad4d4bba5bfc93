package dev.colocate.slurm;

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

    record Jwt(Optional<Path> keyFile, Duration lifetime) implements SlurmConfig.Jwt {
        @Override
        public String user() {
            return "slurm";
        }
    }

    @Test
    void reusesTheTokenUntilFourFifthsOfItsLifetimeThenRenews() throws Exception {
        Path key = Files.write(dir.resolve("k"), new byte[32]);
        ManualClock clock = new ManualClock();
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.of(key), Duration.ofMinutes(5)), clock);

        String first = tokens.token();
        clock.now = clock.now.plus(Duration.ofMinutes(3).plusSeconds(59));
        assertThat(tokens.token()).isSameAs(first);

        clock.now = clock.now.plusSeconds(1);
        assertThat(tokens.token()).isNotEqualTo(first);
    }

    @Test
    void noKeyConfiguredSaysWhichSettingIsMissing() {
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Duration.ofMinutes(5)), new ManualClock());

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("colocate.slurm.jwt.key-file");
    }
}
