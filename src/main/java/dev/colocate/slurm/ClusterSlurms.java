package dev.colocate.slurm;

import dev.colocate.api.SlurmCluster;
import dev.colocate.config.SlurmConfig;
import dev.colocate.operator.model.Component;
import dev.colocate.operator.model.JwtKeys;
import dev.colocate.operator.model.SlurmPaths;
import dev.colocate.slurm.rest.RestSlurmControl;
import dev.colocate.slurm.scontrol.PodExecCommandRunner;
import dev.colocate.slurm.scontrol.ScontrolNodeWriter;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * How colocate reaches the Slurm of a SlurmCluster: its slurmrestd Service, tokens minted from its JWT Secret (HS256,
 * or RS256 when the spec says so; as {@code colocate.slurm.jwt.user}, the rendered SlurmUser), and for the writes a
 * Slurm 22.05 API cannot do, {@code scontrol}/{@code salloc} exec'd in its {@code <cluster>-slurmctld-0} pod (or the
 * backup controller's {@code -1}, while {@code -0} is not ready).
 */
public final class ClusterSlurms {

    private ClusterSlurms() {
    }

    /** A SlurmCluster's Slurm could not be reached yet; the message says what is missing. */
    public static final class Unreachable extends RuntimeException {
        public Unreachable(String message) {
            super(message);
        }
    }

    /**
     * A control for one SlurmCluster's Slurm.
     *
     * @param madeFrom its URL and a digest of the key: when either changes, make a new one
     */
    public record Connection(URI url, String madeFrom, SlurmControl slurm, Runnable close) {
    }

    /**
     * The connection to the cluster's Slurm: {@code current} while its Service and key are what it was made from,
     * else a new one (the caller closes the one it replaces). {@link Unreachable} when the Service or the JWT Secret
     * is missing. Each call reads the Service and the Secret once.
     */
    public static Connection connect(KubernetesClient client, SlurmCluster cluster, SlurmConfig config,
            SlurmMeters meters, Connection current) {
        URI url = url(service(client, cluster));
        KeyBytes key = keyBytes(client, cluster);
        String madeFrom = url + " " + key.digest();
        if (current != null && current.madeFrom().equals(madeFrom)) {
            return current;
        }
        String ns = cluster.getMetadata().getNamespace();
        SlurmTokens tokens = SlurmTokens.minting(key.signer(), config.jwt().user(), config.jwt().lifetime());
        RestSlurmControl rest = RestSlurmControl.at(url, tokens, config, meters);
        // with a backup controller, its pod runs the commands while the primary's is down
        List<String> controllerPods = cluster.getSpec().getHeadNodeConfig().backup()
                ? List.of(cluster.controllerName() + "-0", cluster.controllerName() + "-1")
                : List.of(cluster.controllerName() + "-0");
        SlurmControl slurm = new CompositeSlurmControl(rest, SlurmConfig.NodeWrites.AUTO,
                () -> new ScontrolNodeWriter(new PodExecCommandRunner(client, ns, controllerPods,
                        Component.SLURMCTLD.role()), "scontrol", "salloc", "sbatch", config.requestTimeout(),
                        meters));
        return new Connection(url, madeFrom, slurm, rest::close);
    }

    private static Service service(KubernetesClient client, SlurmCluster cluster) {
        String ns = cluster.getMetadata().getNamespace();
        Service service = client.services().inNamespace(ns).withName(cluster.restApiName()).get();
        if (service == null) {
            throw new Unreachable("its slurmrestd Service " + ns + "/" + cluster.restApiName()
                    + " does not exist yet");
        }
        return service;
    }

    /** The signer of this cluster's tokens: its RSA key for RS256, else its HS256 key. */
    public static SlurmJwt signer(KubernetesClient client, SlurmCluster cluster) {
        return keyBytes(client, cluster).signer();
    }

    /** The key of the Secret that colocate signs with, as read; parsed only when a connection is made. */
    private record KeyBytes(boolean rs256, byte[] bytes, String source) {

        String digest() {
            return (rs256 ? "RS256:" : "HS256:") + ClusterSlurms.digest(bytes);
        }

        SlurmJwt signer() {
            if (!rs256) {
                return SlurmJwt.fromKey(bytes, source);
            }
            try {
                return SlurmJwt.rs256(JwtKeys.privateKey(new String(bytes, StandardCharsets.US_ASCII), source),
                        JwtKeys.KID);
            } catch (IllegalArgumentException e) {
                throw new Unreachable(e.getMessage());
            }
        }
    }

    private static KeyBytes keyBytes(KubernetesClient client, SlurmCluster cluster) {
        boolean rs256 = cluster.getSpec().getJwtConfigs().rs256();
        String file = rs256 ? SlurmPaths.JWT_RS256_KEY_FILE : SlurmPaths.JWT_KEY_FILE;
        SecretKey key = SecretKey.read(client, cluster.getMetadata().getNamespace(), cluster.jwtSecretName(), file);
        if (!key.present()) {
            throw new Unreachable("its JWT Secret " + key.secret() + " "
                    + (key.secretExists() ? key.missing() : "does not exist yet"));
        }
        return new KeyBytes(rs256, key.bytes(), key.source());
    }

    /**
     * The Service's cluster IP, which needs no DNS search path or cluster domain, and its port; its DNS name where it
     * has no cluster IP.
     */
    public static URI url(Service service) {
        String ip = service.getSpec() == null ? null : service.getSpec().getClusterIP();
        String host = ip == null || ip.isBlank() || "None".equals(ip)
                ? service.getMetadata().getName() + "." + service.getMetadata().getNamespace() + ".svc" : ip;
        int port = Optional.ofNullable(service.getSpec()).map(s -> s.getPorts()).filter(p -> !p.isEmpty())
                .map(p -> p.get(0)).map(ServicePort::getPort).orElse(SlurmPaths.SLURMRESTD_PORT);
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port);
    }

    private static String digest(byte[] key) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(key)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
