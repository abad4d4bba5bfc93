package dev.colocate.operator.model;

import io.smallrye.jwt.util.KeyUtils;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import org.jose4j.jwk.JsonWebKeySet;
import org.jose4j.jwk.RsaJsonWebKey;

/**
 * The RSA key of RS256 tokens: made for a generated Secret, read from a Secret, and turned into the public JWKS that
 * slurmctld verifies against. Slurm 22.05 takes a JWKS key only with {@code kid}, {@code n}, {@code e} and
 * {@code alg}, and a token only with the same {@code kid} in its header (verified live; see the issue note).
 */
public final class JwtKeys {

    /** The key id of the one key colocate signs with. */
    public static final String KID = "colocate";
    static final int MIN_BITS = 2048;

    private JwtKeys() {
    }

    /** A new 2048-bit RSA private key, as PKCS#8 PEM. */
    public static String newPem() {
        try {
            KeyPair pair = KeyUtils.generateKeyPair(MIN_BITS);
            return "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(pair.getPrivate().getEncoded())
                    + "\n-----END PRIVATE KEY-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make an RSA key: " + e.getMessage(), e);
        }
    }

    /**
     * The RSA private key of a PKCS#8 PEM; {@link IllegalArgumentException} naming {@code source} (never the key) when
     * it is not one, or is shorter than 2048 bits.
     */
    public static RSAPrivateCrtKey privateKey(String pem, String source) {
        PrivateKey key;
        try {
            key = KeyUtils.decodePrivateKey(pem);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException(source + " is not an RSA private key in PKCS#8 PEM (BEGIN PRIVATE KEY)");
        }
        if (!(key instanceof RSAPrivateCrtKey rsa)) {
            throw new IllegalArgumentException(source + " is not an RSA private key in PKCS#8 PEM (BEGIN PRIVATE KEY)");
        }
        if (rsa.getModulus().bitLength() < MIN_BITS) {
            throw new IllegalArgumentException(source + " is an RSA key of " + rsa.getModulus().bitLength()
                    + " bits; RS256 wants at least " + MIN_BITS);
        }
        return rsa;
    }

    /** The public JWKS of the key: one RS256 signing key, id {@link #KID}. */
    public static String jwks(RSAPrivateCrtKey key) {
        try {
            RSAPublicKey pub = (RSAPublicKey) KeyFactory.getInstance("RSA")
                    .generatePublic(new RSAPublicKeySpec(key.getModulus(), key.getPublicExponent()));
            RsaJsonWebKey jwk = new RsaJsonWebKey(pub);
            jwk.setKeyId(KID);
            jwk.setAlgorithm("RS256");
            jwk.setUse("sig");
            return new JsonWebKeySet(jwk).toJson() + "\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot derive the public key: " + e.getMessage(), e);
        }
    }
}
