package dev.colocate.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Where the JWT keys live, and which one colocate signs slurmrestd's tokens with. */
public class JwtConfigs extends KeySecretConfig {

    /** How colocate signs the tokens it presents to this cluster's slurmrestd. */
    public enum Algorithm {
        HS256, RS256
    }

    @JsonPropertyDescription("HS256 (the default): colocate signs with the shared key jwt_hs256.key. RS256: it signs "
            + "with the RSA private key jwt_rs256.key of the same Secret (PKCS#8 PEM, 2048 bits or more; a generated "
            + "Secret has one), and slurmctld verifies against a JWKS of its public key, which the operator renders "
            + "(AuthAltParameters jwks=); HS256 tokens, such as scontrol token's, are still accepted.")
    private Algorithm algorithm = Algorithm.HS256;

    public Algorithm getAlgorithm() {
        return algorithm;
    }

    public void setAlgorithm(Algorithm algorithm) {
        this.algorithm = algorithm;
    }

    /** Whether colocate signs with the RSA key. */
    public boolean rs256() {
        return algorithm == Algorithm.RS256;
    }
}
