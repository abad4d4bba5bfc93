package dev.colocate.operator.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.slurm.SlurmJwt;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jws.JsonWebSignature;
import org.junit.jupiter.api.Test;

/** The RS256 key: a generated one, its JWKS as slurmctld reads it, and tokens that verify against that JWKS. */
class JwtKeysTest {

    @Test
    void aTokenSignedWithTheKeyVerifiesAgainstTheRenderedJwks() throws Exception {
        var key = JwtKeys.privateKey(JwtKeys.newPem(), "test key");
        String jwks = JwtKeys.jwks(key);

        JsonNode k = new ObjectMapper().readTree(jwks).path("keys").get(0);
        // Slurm 22.05 takes a JWKS key only with kid, n, e and alg (seen live); no private part may leak into it
        assertThat(k.path("kid").asText()).isEqualTo("colocate");
        assertThat(k.path("alg").asText()).isEqualTo("RS256");
        assertThat(k.path("kty").asText()).isEqualTo("RSA");
        assertThat(k.has("n") && k.has("e")).isTrue();
        assertThat(k.has("d") || k.has("p") || k.has("q")).isFalse();

        String token = SlurmJwt.rs256(key, JwtKeys.KID).mint("slurm", Instant.now(), Duration.ofMinutes(5));
        JsonNode header = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(token.split("\\.")[0]));
        assertThat(header.path("alg").asText()).isEqualTo("RS256");
        assertThat(header.path("kid").asText()).as("slurmctld refuses an RS256 token without kid").isEqualTo("colocate");

        JsonWebSignature jws = new JsonWebSignature();
        jws.setCompactSerialization(token);
        jws.setKey(new JsonWebKeySet(jwks).findJsonWebKey("colocate", null, null, null).getKey());
        assertThat(jws.verifySignature()).isTrue();
        assertThat(new ObjectMapper().readTree(jws.getPayload()).path("sun").asText()).isEqualTo("slurm");
    }

    @Test
    void whatIsNotAStrongRsaPrivateKeyIsRefusedWithoutQuotingIt() throws Exception {
        assertThatThrownBy(() -> JwtKeys.privateKey("not a key", "key jwt_rs256.key of Secret ns/s"))
                .hasMessage("key jwt_rs256.key of Secret ns/s is not an RSA private key in PKCS#8 PEM (BEGIN "
                        + "PRIVATE KEY)");

        KeyPairGenerator small = KeyPairGenerator.getInstance("RSA");
        small.initialize(1024);
        String pem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(small.generateKeyPair().getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        assertThatThrownBy(() -> JwtKeys.privateKey(pem, "k"))
                .hasMessage("k is an RSA key of 1024 bits; RS256 wants at least 2048");

        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        String ecPem = "-----BEGIN PRIVATE KEY-----\n"
                + Base64.getMimeEncoder().encodeToString(ec.generateKeyPair().getPrivate().getEncoded())
                + "\n-----END PRIVATE KEY-----\n";
        assertThatThrownBy(() -> JwtKeys.privateKey(ecPem, "k")).hasMessageContaining("is not an RSA private key");
    }
}
