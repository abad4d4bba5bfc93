package dev.colocate.slurm;

import dev.colocate.config.SlurmConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/** The token colocate currently presents to slurmrestd, minted once and renewed before it expires. */
@ApplicationScoped
public class SlurmTokens {

    private final SlurmConfig.Jwt config;
    private final Clock clock;
    private final AtomicReference<Issued> current = new AtomicReference<>();
    private volatile SlurmJwt minter;

    @Inject
    SlurmTokens(SlurmConfig config) {
        this(config.jwt(), Clock.systemUTC());
    }

    SlurmTokens(SlurmConfig.Jwt config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    /** The user the tokens speak for. */
    public String user() {
        return config.user();
    }

    /** A valid token, renewed once four fifths of its lifetime have passed. */
    public String token() {
        Instant now = clock.instant();
        Issued issued = current.get();
        if (issued == null || !now.isBefore(issued.renewAt)) {
            Duration lifetime = config.lifetime();
            issued = new Issued(minter().mint(config.user(), now, lifetime), now.plus(lifetime.multipliedBy(4).dividedBy(5)));
            current.set(issued);
        }
        return issued.token;
    }

    private SlurmJwt minter() {
        SlurmJwt m = minter;
        if (m == null) {
            m = SlurmJwt.fromKeyFile(config.keyFile().orElseThrow(() -> new SlurmAuthException(
                    "no Slurm JWT key configured: set colocate.slurm.jwt.key-file", null)));
            minter = m;
        }
        return m;
    }

    private record Issued(String token, Instant renewAt) {
        @Override
        public String toString() {
            return "Issued[renewAt=" + renewAt + "]";
        }
    }
}
