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

    /**
     * Whether the copilot serves the Slurm configured here (one colocate's operator did not make, e.g. on the nodes'
     * hosts). Turn it off when every Slurm comes from SlurmClusters, whose slurmrestd and JWT Secret the copilot
     * finds by itself.
     */
    @WithDefault("true")
    boolean enabled();

    /** Base URL of slurmrestd. */
    @WithDefault("http://127.0.0.1:6820")
    URI restUrl();

    /**
     * Force a slurmrestd API version (v0.0.38, v0.0.40 to v0.0.45) instead of the highest one the server offers
     * in /openapi/v3.
     */
    Optional<String> apiVersion();

    /** How often a failed read is retried, with jittered backoff, while Slurm is unreachable. Writes never are. */
    @WithDefault("3")
    int readRetries();

    /** Token settings. */
    Jwt jwt();

    /**
     * Who writes node GRES counts, releases jobs and asks for holds: {@code rest} (node writes from slurmrestd
     * v0.0.40, Slurm 23.11; holds by {@code job/allocate} from v0.0.41, Slurm 24.05), {@code scontrol} (scontrol,
     * salloc and sbatch), or {@code auto}, which takes REST for each where the server's API can do it and Slurm's
     * commands otherwise.
     */
    @WithDefault("auto")
    NodeWrites nodeWrites();

    /** How scontrol is run when it writes. */
    Scontrol scontrol();

    enum NodeWrites {
        AUTO, REST, SCONTROL
    }

    /** Running scontrol: as a local process, or by exec into the slurmctld pod. */
    interface Scontrol {

        /** {@code local} or {@code exec}. */
        @WithDefault("local")
        Mode mode();

        /** The scontrol executable. */
        @WithDefault("scontrol")
        String command();

        /** The salloc executable, which grants holds where slurmrestd has no {@code job/allocate} (before 24.05). */
        @WithDefault("salloc")
        String salloc();

        /** The sbatch executable, which queues holds that must wait for room where REST cannot pin a job. */
        @WithDefault("sbatch")
        String sbatch();

        /** slurm.conf for a local scontrol (SLURM_CONF); the tool's default when unset. */
        Optional<Path> slurmConf();

        /** Namespace of the slurmctld pod, for exec. */
        Optional<String> namespace();

        /** Name of the slurmctld pod, for exec. */
        Optional<String> pod();

        /** Container of the slurmctld pod that has scontrol, for exec. */
        @WithDefault("slurmctld")
        String container();

        enum Mode {
            LOCAL, EXEC
        }
    }

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

        /**
         * A Secret holding Slurm's HS256 key, read through the API when no key file is given: the way in a cluster,
         * where a Secret volume's files are readable by the pod's group (fsGroup) and so fail the owner-only check.
         */
        Optional<String> keySecret();

        /** The Secret's namespace: colocate's own (POD_NAMESPACE), else default. */
        @WithDefault("${POD_NAMESPACE:default}")
        String keySecretNamespace();

        /** The Secret's key that holds the HS256 key. */
        @WithDefault("jwt_hs256.key")
        String keySecretKey();

        /**
         * A file holding a ready-made token (e.g. from {@code scontrol token}), used instead of minting when no key is
         * given. It is re-read when it changes; its expiry is exported as colocate_slurm_token_expiry_seconds.
         */
        Optional<Path> tokenFile();

        /** Lifetime of each minted token; tokens are renewed before they expire. */
        @WithDefault("5m")
        Duration lifetime();
    }
}
