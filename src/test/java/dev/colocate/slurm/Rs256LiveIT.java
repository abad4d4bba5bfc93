package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.operator.model.JwtKeys;
import dev.colocate.testing.SlurmHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * RS256 on the newer Slurm releases, as the operator sets it up (OperatorOutputRunsIT shows 22.05): slurmctld
 * verifies against the JWKS colocate renders, and takes the tokens colocate signs with the RSA key.
 */
@Tag("slurm")
class Rs256LiveIT {

    @TempDir
    static Path dir;

    @AfterAll
    static void stopSlurm() {
        SlurmHarness.shutdown();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"SLURM_24_11, v0.0.42", "SLURM_26_05, v0.0.45"})
    void slurmctldTakesColocatesRs256TokensAndRefusesAnotherKeyUnderTheSameKid(SlurmHarness.Release release,
            String version) throws Exception {
        var key = JwtKeys.privateKey(JwtKeys.newPem(), "test key");
        Path jwks = Files.writeString(dir.resolve(release + "-jwks.json"), JwtKeys.jwks(key));
        SlurmHarness slurm = SlurmHarness.ensure(new SlurmHarness.Shape(1, 8, 32000, false).on(release)
                .verifyingJwks(jwks));
        URI diag = URI.create(slurm.restUrl() + "/slurm/" + version + "/diag");

        String rs256 = SlurmJwt.rs256(key, JwtKeys.KID).mint("slurm", Instant.now(), Duration.ofMinutes(5));
        String forged = SlurmJwt.rs256(JwtKeys.privateKey(JwtKeys.newPem(), "other key"), JwtKeys.KID)
                .mint("slurm", Instant.now(), Duration.ofMinutes(5));
        String hs256 = SlurmJwt.fromKeyFile(slurm.jwtKey()).mint("slurm", Instant.now(), Duration.ofMinutes(5));

        assertThat(status(diag, rs256)).isEqualTo(200);
        assertThat(status(diag, forged)).isNotEqualTo(200);
        assertThat(status(diag, hs256)).as("HS256 (scontrol token's) keeps working").isEqualTo(200);
    }

    private static int status(URI uri, String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri).header("X-SLURM-USER-NAME", "slurm")
                .header("X-SLURM-USER-TOKEN", token).timeout(Duration.ofSeconds(10)).build();
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request, HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
