package dev.colocate.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.config.SlurmConfig;
import dev.colocate.metrics.Gauges;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The token colocate currently presents to slurmrestd: minted from the HS256 key and renewed before it expires, or
 * read from a token file (re-read when the file changes, as a mounted Secret does). Its expiry is exported as
 * {@code colocate_slurm_token_expiry_seconds}, so an alert can fire before a static token runs out.
 */
@ApplicationScoped
public class SlurmTokens {

    static final String EXPIRY = "colocate.slurm.token.expiry";

    private final String user;
    private final Duration lifetime;
    /** The ready-made token's file, used when no key is given. */
    private final Optional<Path> tokenFile;
    /** The key's signer, made on first need (a missing key file fails the first token, not the start). */
    private final Supplier<SlurmJwt> keySource;
    private final Clock clock;
    private final AtomicReference<Issued> current = new AtomicReference<>();
    private volatile SlurmJwt minter;
    /** When the key was last dropped after Slurm refused a token: at most one re-read per {@link #REREAD_EVERY}. */
    private volatile Instant droppedAt = Instant.MIN;
    static final Duration REREAD_EVERY = Duration.ofSeconds(10);

    @Inject
    SlurmTokens(SlurmConfig config, MeterRegistry registry, Instance<KubernetesClient> client) {
        this(config.jwt(), Clock.systemUTC(), registry, client::get);
    }

    SlurmTokens(SlurmConfig.Jwt config, Clock clock, MeterRegistry registry, Supplier<KubernetesClient> client) {
        this(config.user(), config.lifetime(),
                config.keyFile().isEmpty() && config.keySecret().isEmpty() ? config.tokenFile() : Optional.empty(),
                () -> keyOf(config, client), clock);
        Gauges.register(registry, EXPIRY, Tags.empty(), current,
                c -> c.get() == null ? Double.NaN : c.get().expiresAt.getEpochSecond(),
                b -> b.baseUnit("seconds")
                        .description("When the token colocate presents to slurmrestd expires (Unix time)"));
    }

    private SlurmTokens(String user, Duration lifetime, Optional<Path> tokenFile, Supplier<SlurmJwt> keySource,
            Clock clock) {
        this.user = user;
        this.lifetime = lifetime;
        this.tokenFile = tokenFile;
        this.keySource = keySource;
        this.clock = clock;
    }

    /**
     * Tokens minted from a key colocate was handed (a SlurmCluster's JWT Secret), for {@code user}, each valid for
     * {@code lifetime}. Their expiry is not exported: the metric is for the configured Slurm's token, which can run out.
     */
    public static SlurmTokens minting(SlurmJwt key, String user, Duration lifetime) {
        return new SlurmTokens(user, lifetime, Optional.empty(), () -> key, Clock.systemUTC());
    }

    /** The configured key: its file, else its Secret; the errors name where to look, never the key. */
    private static SlurmJwt keyOf(SlurmConfig.Jwt config, Supplier<KubernetesClient> client) {
        if (config.keyFile().isPresent()) {
            return SlurmJwt.fromKeyFile(config.keyFile().get());
        }
        String name = config.keySecret().orElseThrow(() -> new SlurmAuthException("no Slurm credentials configured: "
                + "set colocate.slurm.jwt.key-file, .key-secret or .token-file", null));
        SecretKey key;
        try {
            key = SecretKey.read(client.get(), config.keySecretNamespace(), name, config.keySecretKey());
        } catch (KubernetesClientException e) {
            throw new SlurmAuthException("cannot read the Secret " + config.keySecretNamespace() + "/" + name
                    + " (Slurm's JWT key): " + e.getMessage(), e);
        }
        if (!key.present()) {
            throw new SlurmAuthException("the Secret " + key.secret() + " " + key.missing()
                    + ": it must hold Slurm's jwt_hs256.key", null);
        }
        return SlurmJwt.fromKey(key.bytes(), key.source());
    }

    /** The user the tokens speak for. */
    public String user() {
        return user;
    }

    /**
     * Whether the next {@link #token()} may block: it has to read the key first (its file or its Secret). Minting with
     * a key in hand and re-reading a token file only when it changed do not wait on anything.
     */
    public boolean mayBlock() {
        return tokenFile.isEmpty() && minter == null;
    }

    /** A valid token: a minted one is renewed once four fifths of its lifetime have passed. */
    public String token() {
        if (tokenFile.isPresent()) {
            return fromFile(tokenFile.get());
        }
        Instant now = clock.instant();
        Issued issued = current.get();
        if (issued == null || !now.isBefore(issued.renewAt)) {
            Instant expires = now.plus(lifetime);
            issued = new Issued(minter().mint(user, now, lifetime),
                    now.plus(lifetime.multipliedBy(4).dividedBy(5)), expires, null);
            current.set(issued);
        }
        return issued.token;
    }

    private String fromFile(Path file) {
        try {
            FileTime modified = Files.getLastModifiedTime(file);
            Issued issued = current.get();
            if (issued == null || !modified.equals(issued.fileTime)) {
                OwnerOnlyFiles.check(file, "the Slurm token file");
                String token = Files.readString(file).strip();
                issued = new Issued(token, Instant.MAX, expiryOf(token, file), modified);
                current.set(issued);
            }
            return issued.token;
        } catch (IOException e) {
            throw new SlurmAuthException("cannot read the Slurm token file " + file + ": "
                    + e.getClass().getSimpleName(), e);
        }
    }

    /** The exp claim, read without verifying: only slurmctld can verify, and it will. */
    static Instant expiryOf(String token, Path file) {
        String[] parts = token.split("\\.");
        try {
            JsonNode claims = new ObjectMapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
            if (!claims.path("exp").canConvertToLong()) {
                throw new IllegalArgumentException("no exp claim");
            }
            return Instant.ofEpochSecond(claims.path("exp").asLong());
        } catch (IOException | RuntimeException e) {
            // the message names the file and never quotes the token
            throw new SlurmAuthException("the Slurm token file " + file + " does not hold a JWT with an exp claim",
                    null);
        }
    }

    /**
     * Slurm refused the current token: its key may have been rotated (a new jwt_hs256.key file or Secret). The key is
     * read again for the next token, at most once per {@link #REREAD_EVERY}, so that a refused storm of calls does
     * not read the Secret once per call. A ready-made token file is re-read when it changes anyway.
     */
    public void refused() {
        Instant now = clock.instant();
        if (tokenFile.isPresent() || now.isBefore(droppedAt.plus(REREAD_EVERY))) {
            return;
        }
        droppedAt = now;
        minter = null;
        current.set(null);
    }

    private SlurmJwt minter() {
        SlurmJwt m = minter;
        if (m == null) {
            m = keySource.get();
            minter = m;
        }
        return m;
    }

    private record Issued(String token, Instant renewAt, Instant expiresAt, FileTime fileTime) {
        @Override
        public String toString() {
            return "Issued[expiresAt=" + expiresAt + "]";
        }
    }
}
