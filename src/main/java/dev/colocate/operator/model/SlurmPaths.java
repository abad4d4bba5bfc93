package dev.colocate.operator.model;

/**
 * Where the Slurm pods find what the operator gives them: the contract between the pod templates, the rendered
 * configuration and the image's entrypoint (src/main/slurm/image).
 */
public final class SlurmPaths {

    private SlurmPaths() {
    }

    /** The rendered ConfigMap, read-only; Slurm reads slurm.conf from SLURM_CONF and the rest beside it. */
    public static final String CONFIG_DIR = "/etc/slurm";
    public static final String SLURM_CONF = CONFIG_DIR + "/slurm.conf";
    /** The munge key Secret; munged wants the key owned by its user with mode 0400, so the entrypoint copies it. */
    public static final String MUNGE_KEY_DIR = "/etc/munge-key";
    public static final String MUNGE_KEY = MUNGE_KEY_DIR + "/munge.key";
    /** The JWT key Secret, mounted root-owned and 0400. */
    public static final String JWT_KEY_DIR = "/etc/slurm-jwt";
    public static final String JWT_KEY = JWT_KEY_DIR + "/jwt_hs256.key";
    /**
     * The JWT key as slurm.conf's and slurmdbd.conf's AuthAltParameters name it: slurmctld and slurmdbd read it after
     * they become SlurmUser, who cannot read the root-owned Secret file, so the entrypoint copies it here for them.
     */
    public static final String JWT_KEY_RUNTIME = "/run/colocate-slurm/jwt_hs256.key";
    /** slurmctld's StateSaveLocation, on its PersistentVolumeClaim. */
    public static final String STATE_SAVE = "/var/spool/slurmctld";
    public static final String SLURMD_SPOOL = "/var/spool/slurmd";

    public static final String MUNGE_KEY_FILE = "munge.key";
    public static final String JWT_KEY_FILE = "jwt_hs256.key";
    /** The RSA private key (PKCS#8 PEM) colocate signs RS256 tokens with; the same Secret as the HS256 key. */
    public static final String JWT_RS256_KEY_FILE = "jwt_rs256.key";
    /** The public JWKS slurmctld verifies RS256 tokens against: in the ConfigMap, since it holds no secret. */
    public static final String JWKS_FILE = "jwks.json";
    public static final String JWKS = CONFIG_DIR + "/" + JWKS_FILE;

    public static final int SLURMCTLD_PORT = 6817;
    public static final int SLURMD_PORT = 6818;
    public static final int SLURMDBD_PORT = 6819;
    public static final int SLURMRESTD_PORT = 6820;

    /** The image's entrypoint; its one argument is the component's role. */
    public static final String ENTRYPOINT = "/usr/local/bin/colocate-slurm-entrypoint";
    /** Environment variables that carry database passwords from Secrets; the entrypoint writes them into place. */
    public static final String ENV_STORAGE_PASS = "SLURMDBD_STORAGE_PASS";
    public static final String ENV_JOBCOMP_PASS = "SLURM_JOBCOMP_PASS";
    /**
     * slurmd of a GPU group: how many GPUs its node offers. The entrypoint names them in gres.conf from the devices
     * the device plugin put into the pod (Slurm drops a GPU line without {@code File=}).
     */
    public static final String ENV_GPUS = "SLURMD_GPUS";
}
