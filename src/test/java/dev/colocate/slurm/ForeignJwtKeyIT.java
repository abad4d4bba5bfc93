package dev.colocate.slurm;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Files;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Tokens minted from a key that is not the cluster's. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = RefusedCredentials.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "mode", value = "foreign-key"))
class ForeignJwtKeyIT extends RefusedCredentialsCheck {

    @Test
    void isRefusedAndNeitherKeyNorTokenIsLogged() throws Exception {
        byte[] key = Files.readAllBytes(RefusedCredentials.DIR.resolve("foreign.key"));
        assertRefusedWithoutLeaking(List.of(tokens.token(), Base64.getEncoder().encodeToString(key),
                HexFormat.of().formatHex(key)));
    }
}
