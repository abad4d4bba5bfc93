package dev.colocate.slurm;

import io.smallrye.jwt.algorithm.SignatureAlgorithm;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.security.PrivateKey;
import java.time.Instant;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints the tokens Slurm's auth/jwt accepts: HS256 over the raw bytes of {@code jwt_hs256.key}, or RS256 with an
 * RSA key whose public half slurmctld has in its JWKS; with the claims {@code sun} (the Slurm user name), {@code iat}
 * and {@code exp}.
 */
public final class SlurmJwt {

    /** Slurm signs with the whole key file as the HMAC key; HS256 needs at least 256 bits of it. */
    static final int MIN_KEY_BYTES = 32;

    private final SecretKey key;
    private final PrivateKey rsaKey;
    private final String keyId;

    private SlurmJwt(SecretKey key, PrivateKey rsaKey, String keyId) {
        this.key = key;
        this.rsaKey = rsaKey;
        this.keyId = keyId;
    }

    /** Reads Slurm's HS256 key file; the error names the file, never its content. */
    public static SlurmJwt fromKeyFile(Path keyFile) {
        OwnerOnlyFiles.check(keyFile, "the Slurm JWT key file");
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(keyFile);
        } catch (IOException e) {
            throw new SlurmAuthException("cannot read the Slurm JWT key file " + keyFile + ": "
                    + e.getClass().getSimpleName(), e);
        }
        return fromKey(bytes, "the Slurm JWT key file " + keyFile);
    }

    /** Takes Slurm's HS256 key as bytes, e.g. from a Secret; {@code source} names it in errors, never its content. */
    public static SlurmJwt fromKey(byte[] bytes, String source) {
        if (bytes.length < MIN_KEY_BYTES) {
            throw new SlurmAuthException(source + " holds " + bytes.length + " bytes; HS256 needs at least "
                    + MIN_KEY_BYTES, null);
        }
        return new SlurmJwt(new SecretKeySpec(bytes, "HmacSHA256"), null, null);
    }

    /**
     * Signs RS256 with an RSA private key, naming {@code keyId} in the header: slurmctld picks the JWKS key by it
     * and refuses a token without one.
     */
    public static SlurmJwt rs256(PrivateKey key, String keyId) {
        return new SlurmJwt(null, key, keyId);
    }

    /** A token that speaks for {@code user} from {@code now} for {@code lifetime}. */
    public String mint(String user, Instant now, Duration lifetime) {
        try {
            var claims = Jwt.claims()
                    .claim("sun", user)
                    .issuedAt(now)
                    .expiresAt(now.plus(lifetime))
                    .jws();
            return rsaKey == null ? claims.algorithm(SignatureAlgorithm.HS256).sign(key)
                    : claims.algorithm(SignatureAlgorithm.RS256).keyId(keyId).sign(rsaKey);
        } catch (JwtException e) {
            // the message of a signing failure never carries the key
            throw new SlurmAuthException("cannot sign a Slurm JWT: " + e.getMessage(), e);
        }
    }
}
