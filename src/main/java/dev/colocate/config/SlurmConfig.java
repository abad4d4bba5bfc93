package dev.colocate.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** How colocate reaches Slurm: slurmrestd's address and the JWT credentials it accepts. */
@ConfigMapping(prefix = "colocate.slurm")
public interface SlurmConfig {

    /** Base URL of slurmrestd. */
    @WithDefault("http://127.0.0.1:6820")
    URI restUrl();

    /** The slurmrestd API version to speak, e.g. v0.0.38 for Slurm 22.05. */
    @WithDefault("v0.0.38")
    String apiVersion();

    /** Token settings. */
    Jwt jwt();

    /** Bound on every call to Slurm. */
    @WithDefault("5s")
    Duration requestTimeout();

    /** JWT settings for slurmrestd (auth/jwt, HS256). */
    interface Jwt {

        /**
         * The Slurm user the tokens speak for ({@code sun}). It must be SlurmUser or root: only those may act for
         * other users and update nodes.
         */
        @WithDefault("slurm")
        String user();

        /** Slurm's HS256 key file ({@code jwt_hs256.key}); tokens are minted from it. */
        Optional<Path> keyFile();

        /** Lifetime of each minted token; tokens are renewed before they expire. */
        @WithDefault("5m")
        Duration lifetime();
    }
}
