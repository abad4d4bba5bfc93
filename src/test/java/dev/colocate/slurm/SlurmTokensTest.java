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
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true)
class SlurmTokensTest {

    /** Given by the mock API server's extension. */
    KubernetesClient client;

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

    record Jwt(Optional<Path> keyFile, Optional<Path> tokenFile, Optional<String> keySecret, Duration lifetime)
            implements SlurmConfig.Jwt {
        Jwt(Optional<Path> keyFile, Duration lifetime) {
            this(keyFile, Optional.empty(), lifetime);
        }

        Jwt(Optional<Path> keyFile, Optional<Path> tokenFile, Duration lifetime) {
            this(keyFile, tokenFile, Optional.empty(), lifetime);
        }

        @Override
        public String user() {
            return "slurm";
        }

        @Override
        public String keySecretNamespace() {
            return "colocate";
        }

        @Override
        public String keySecretKey() {
            return "jwt_hs256.key";
        }
    }

    /** The tests that give no Secret never reach the API. */
    private static final Supplier<KubernetesClient> NO_API = () -> {
        throw new AssertionError("the API was called");
    };

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private double exportedExpiry() {
        return registry.get(SlurmTokens.EXPIRY).gauge().value();
    }

    @Test
    void reusesTheTokenUntilFourFifthsOfItsLifetimeThenRenews() throws Exception {
        Path key = KeyFiles.ownerOnly(Files.write(dir.resolve("k"), new byte[32]));
        ManualClock clock = new ManualClock();
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.of(key), Duration.ofMinutes(5)), clock, registry, NO_API);

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
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Duration.ofMinutes(5)), new ManualClock(), registry, NO_API);

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("colocate.slurm.jwt.key-file")
                .hasMessageContaining(".key-secret");
    }

    @Test
    void aKeySecretIsReadThroughTheApiAndItsAbsenceNamed() throws Exception {
        Jwt config = new Jwt(Optional.empty(), Optional.empty(), Optional.of("slurm-jwt"), Duration.ofMinutes(5));
        SlurmTokens tokens = new SlurmTokens(config, new ManualClock(), registry, () -> client);

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("the Secret colocate/slurm-jwt does not exist");

        byte[] key = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        client.secrets().inNamespace("colocate").resource(new SecretBuilder().withNewMetadata().withName("slurm-jwt")
                .endMetadata().addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(key)).build()).create();
        // the Secret's key signs the token, so slurmctld, which has the same key, accepts it
        String token = tokens.token();
        int lastDot = token.lastIndexOf('.');
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        assertThat(Base64.getUrlEncoder().withoutPadding().encodeToString(
                mac.doFinal(token.substring(0, lastDot).getBytes(StandardCharsets.US_ASCII))))
                .isEqualTo(token.substring(lastDot + 1));
    }

    @Test
    void aRotatedKeySecretIsReadAgainOnceSlurmRefusesTheToken() throws Exception {
        Jwt config = new Jwt(Optional.empty(), Optional.empty(), Optional.of("rotated"), Duration.ofMinutes(5));
        ManualClock clock = new ManualClock();
        SlurmTokens tokens = new SlurmTokens(config, clock, registry, () -> client);
        byte[] old = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        byte[] rotated = "fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII);
        client.secrets().inNamespace("colocate").resource(keySecret("rotated", old)).create();
        assertThat(signedBy(tokens.token(), old)).isTrue();

        client.secrets().inNamespace("colocate").resource(keySecret("rotated", rotated)).update();
        // until Slurm refuses it, the token stands; then the next one is signed with the Secret's new key
        assertThat(signedBy(tokens.token(), old)).isTrue();
        tokens.refused();
        assertThat(signedBy(tokens.token(), rotated)).isTrue();

        // a second refusal within ten seconds reads nothing again
        client.secrets().inNamespace("colocate").resource(keySecret("rotated", old)).update();
        tokens.refused();
        assertThat(signedBy(tokens.token(), rotated)).isTrue();
        clock.now = clock.now.plus(SlurmTokens.REREAD_EVERY);
        tokens.refused();
        assertThat(signedBy(tokens.token(), old)).isTrue();
    }

    private static io.fabric8.kubernetes.api.model.Secret keySecret(String name, byte[] key) {
        return new SecretBuilder().withNewMetadata().withName(name).withNamespace("colocate").endMetadata()
                .addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(key)).build();
    }

    private static boolean signedBy(String token, byte[] key) throws Exception {
        int lastDot = token.lastIndexOf('.');
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                mac.doFinal(token.substring(0, lastDot).getBytes(StandardCharsets.US_ASCII)))
                .equals(token.substring(lastDot + 1));
    }

    @Test
    void aKeySecretWithoutTheKeyOrTooShortIsRefusedWithoutQuotingIt() {
        client.secrets().inNamespace("colocate").resource(new SecretBuilder().withNewMetadata().withName("other")
                .endMetadata().addToData("wrong", "eA==").build()).create();
        client.secrets().inNamespace("colocate").resource(new SecretBuilder().withNewMetadata().withName("short")
                .endMetadata().addToData("jwt_hs256.key", Base64.getEncoder().encodeToString(
                        "s3cr3t".getBytes(StandardCharsets.US_ASCII))).build()).create();

        assertThatThrownBy(new SlurmTokens(new Jwt(Optional.empty(), Optional.empty(), Optional.of("other"),
                Duration.ofMinutes(5)), new ManualClock(), registry, () -> client)::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("the Secret colocate/other has no key jwt_hs256.key");
        assertThatThrownBy(new SlurmTokens(new Jwt(Optional.empty(), Optional.empty(), Optional.of("short"),
                Duration.ofMinutes(5)), new ManualClock(), registry, () -> client)::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("of the Secret colocate/short holds 6 bytes")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void aStaticTokenFileIsUsedAndItsExpiryExported() throws Exception {
        Path key = KeyFiles.ownerOnly(Files.write(dir.resolve("k"), new byte[32]));
        String token = SlurmJwt.fromKeyFile(key).mint("slurm", Instant.parse("2026-12-02T10:00:00Z"),
                Duration.ofDays(1));
        Path file = KeyFiles.ownerOnly(Files.writeString(dir.resolve("token"), token + "\n"));
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Optional.of(file), Duration.ofMinutes(5)),
                new ManualClock(), registry, NO_API);

        assertThat(tokens.token()).isEqualTo(token);
        assertThat(exportedExpiry()).isEqualTo(Instant.parse("2026-12-03T10:00:00Z").getEpochSecond());
    }

    @Test
    void aTokenFileWithoutAJwtIsRefusedWithoutQuotingIt() throws Exception {
        Path file = KeyFiles.ownerOnly(Files.writeString(dir.resolve("token"), "s3cr3t-not-a-jwt"));
        SlurmTokens tokens = new SlurmTokens(new Jwt(Optional.empty(), Optional.of(file), Duration.ofMinutes(5)),
                new ManualClock(), registry, NO_API);

        assertThatThrownBy(tokens::token)
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining(file.toString())
                .hasMessageNotContaining("s3cr3t");
    }
}
