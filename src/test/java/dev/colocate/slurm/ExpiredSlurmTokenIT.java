package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A static token file whose token has expired. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = RefusedCredentials.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "mode", value = "expired-token"))
class ExpiredSlurmTokenIT extends RefusedCredentialsCheck {

    @Test
    void isRefusedAndTheTokenIsNotLogged() throws Exception {
        String token = Files.readString(RefusedCredentials.DIR.resolve("expired.token")).strip();
        assertThat(tokens.token()).isEqualTo(token);
        assertRefusedWithoutLeaking(List.of(token, token.substring(token.lastIndexOf('.') + 1)));
    }
}
