package dev.colocate.slurm;

import dev.colocate.testing.KeyFiles;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmJwtTest {

    @TempDir
    Path dir;

    private Path keyFile(int bytes) throws Exception {
        byte[] key = new byte[bytes];
        new SecureRandom().nextBytes(key);
        return KeyFiles.ownerOnly(Files.write(dir.resolve("jwt_hs256.key"), key));
    }

    private static JsonNode part(String token, int index) throws Exception {
        return new ObjectMapper().readTree(Base64.getUrlDecoder().decode(token.split("\\.")[index]));
    }

    @Test
    void mintsHs256WithTheClaimsSlurmReads() throws Exception {
        Path key = keyFile(32);
        Instant now = Instant.parse("2026-12-02T10:00:00Z");

        String token = SlurmJwt.fromKeyFile(key).mint("slurm", now, Duration.ofMinutes(5));

        assertThat(part(token, 0).path("alg").asText()).isEqualTo("HS256");
        JsonNode claims = part(token, 1);
        assertThat(claims.path("sun").asText()).isEqualTo("slurm");
        assertThat(claims.path("iat").asLong()).isEqualTo(now.getEpochSecond());
        assertThat(claims.path("exp").asLong()).isEqualTo(now.getEpochSecond() + 300);
        // Slurm checks the signature as HMAC-SHA256 over header.payload with the raw key file bytes
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(Files.readAllBytes(key), "HmacSHA256"));
        String signed = token.substring(0, token.lastIndexOf('.'));
        String expected = Base64.getUrlEncoder().withoutPadding()
                .encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.US_ASCII)));
        assertThat(token.substring(token.lastIndexOf('.') + 1)).isEqualTo(expected);
    }

    @Test
    void aShortKeyIsRefusedWithoutRevealingIt() throws Exception {
        Path key = KeyFiles.ownerOnly(Files.writeString(dir.resolve("short.key"), "hunter2-secret"));

        assertThatThrownBy(() -> SlurmJwt.fromKeyFile(key))
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("short.key")
                .hasMessageContaining("14 bytes")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void aKeyOthersCanReadIsRefusedWithWhatToDo() throws Exception {
        Path key = Files.write(dir.resolve("shared.key"), new byte[32]);
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> SlurmJwt.fromKeyFile(key))
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining("shared.key is readable beyond its owner (rw-r--r--)")
                .hasMessageContaining("chmod 600");
        // owner-only, it is taken
        KeyFiles.ownerOnly(key);
        assertThat(SlurmJwt.fromKeyFile(key).mint("slurm", java.time.Instant.now(), java.time.Duration.ofMinutes(1)))
                .isNotBlank();
    }

    @Test
    void aMissingKeyFileIsNamed() {
        Path missing = dir.resolve("nope.key");

        assertThatThrownBy(() -> SlurmJwt.fromKeyFile(missing))
                .isInstanceOf(SlurmAuthException.class)
                .hasMessageContaining(missing.toString());
    }
}
