package dev.colocate.slurm;

import dev.colocate.testing.KeyFiles;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import dev.colocate.testing.RealSlurm;
import dev.colocate.testing.SlurmHarness;
import io.restassured.response.ValidatableResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tokens minted by colocate, presented to a real slurmrestd 22.05 (rest_auth/jwt, HS256). */
@RealSlurm
class SlurmRestAuthIT {

    static final String V = "/slurm/v0.0.38";

    private static ValidatableResponse get(SlurmHarness slurm, String token, String path) {
        return given().baseUri(slurm.restUrl())
                .header("X-SLURM-USER-NAME", "slurm")
                .header("X-SLURM-USER-TOKEN", token)
                .get(V + path)
                .then();
    }

    /** Slurm 22.05 answers a token it cannot verify with HTTP 500, an error entry and no data. */
    private static void refused(ValidatableResponse response) {
        response.statusCode(500)
                .body("errors", not(empty()))
                .body("nodes", empty());
    }

    @Test
    void aMintedTokenPingsAndListsTheNodeWithItsKubernetesGres(SlurmHarness slurm) {
        String token = SlurmJwt.fromKeyFile(slurm.jwtKey()).mint("slurm", Instant.now(), Duration.ofMinutes(5));

        get(slurm, token, "/ping").statusCode(200)
                .body("errors", empty())
                .body("pings[0].ping", equalTo("UP"));
        get(slurm, token, "/nodes").statusCode(200)
                .body("nodes.name", hasItem("node1"))
                .body("nodes.find { it.name == 'node1' }.cpus", equalTo(8))
                .body("nodes.find { it.name == 'node1' }.gres", equalTo("k8scpu:8,k8smemory:32000"))
                .body("nodes.find { it.name == 'node1' }.gres_used", equalTo("k8scpu:0,k8smemory:0"));
    }

    @Test
    void anExpiredTokenIsRefused(SlurmHarness slurm) {
        Instant anHourAgo = Instant.now().minus(Duration.ofHours(1));
        String expired = SlurmJwt.fromKeyFile(slurm.jwtKey()).mint("slurm", anHourAgo, Duration.ofMinutes(5));

        refused(get(slurm, expired, "/nodes"));
    }

    @Test
    void aTokenSignedWithAnotherKeyIsRefused(SlurmHarness slurm, @TempDir Path dir) throws Exception {
        byte[] other = new byte[32];
        new SecureRandom().nextBytes(other);
        Path wrongKey = KeyFiles.ownerOnly(Files.write(dir.resolve("other.key"), other));
        String forged = SlurmJwt.fromKeyFile(wrongKey).mint("slurm", Instant.now(), Duration.ofMinutes(5));

        refused(get(slurm, forged, "/nodes"));
    }
}
