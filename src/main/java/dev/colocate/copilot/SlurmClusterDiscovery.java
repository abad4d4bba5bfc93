package dev.colocate.copilot;

import dev.colocate.api.SlurmCluster;
import dev.colocate.config.SlurmConfig;
import dev.colocate.operator.model.Component;
import dev.colocate.operator.model.SlurmPaths;
import dev.colocate.slurm.CompositeSlurmControl;
import dev.colocate.slurm.SlurmJwt;
import dev.colocate.slurm.SlurmMeters;
import dev.colocate.slurm.SlurmTokens;
import dev.colocate.slurm.rest.RestSlurmControl;
import dev.colocate.slurm.scontrol.PodExecCommandRunner;
import dev.colocate.slurm.scontrol.ScontrolNodeWriter;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Finds the Slurm of every SlurmCluster by itself: its slurmrestd Service and the JWT Secret the operator made (or
 * the user named), and makes a {@link SlurmLink} to it. Node writes and holds go over REST where the cluster's API
 * can (Slurm 24.05 on), otherwise by {@code scontrol}/{@code salloc} exec'd in its slurmctld pod. Runs at start, every
 * resync, and at a poll that finds a shared node whose SlurmCluster has no link yet.
 */
@ApplicationScoped
public class SlurmClusterDiscovery {

    private static final Logger LOG = Logger.getLogger(SlurmClusterDiscovery.class);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmLinks links;

    @Inject
    SlurmConfig slurmConfig;

    @Inject
    SlurmMeters meters;

    /** What each link was made from (URL and a digest of the key): a change makes a new link. */
    private final Map<String, String> madeFrom = new ConcurrentHashMap<>();

    /** Looks for SlurmClusters; blocks, so it runs on a worker thread. */
    public Uni<Void> refresh() {
        return Uni.createFrom().item(() -> {
            refreshNow();
            return (Void) null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    void start() {
        refreshNow();
    }

    synchronized void refreshNow() {
        List<SlurmCluster> clusters;
        try {
            clusters = client.resources(SlurmCluster.class).inAnyNamespace().list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                clusters = List.of(); // the SlurmCluster CRD is not installed: no cluster to find
            } else {
                LOG.warnf("could not list SlurmClusters (%s); keeping the clusters known", e.getMessage());
                return;
            }
        }
        Set<String> seen = new HashSet<>();
        for (SlurmCluster cluster : clusters) {
            String key = cluster.getMetadata().getNamespace() + "/" + cluster.getMetadata().getName();
            seen.add(key);
            try {
                link(key, cluster);
            } catch (RuntimeException e) {
                links.unlinked(key, "cannot reach its Slurm: " + e.getMessage());
            }
        }
        for (SlurmLink link : links.all()) {
            if (!link.key().equals(SlurmLinks.CONFIGURED) && !seen.contains(link.key())) {
                madeFrom.remove(link.key());
                links.remove(link.key());
            }
        }
    }

    private void link(String key, SlurmCluster cluster) {
        String ns = cluster.getMetadata().getNamespace();
        Service service = client.services().inNamespace(ns).withName(cluster.restApiName()).get();
        if (service == null) {
            links.unlinked(key, "its slurmrestd Service " + ns + "/" + cluster.restApiName()
                    + " does not exist yet");
            return;
        }
        Secret secret = client.secrets().inNamespace(ns).withName(cluster.jwtSecretName()).get();
        String data = secret == null || secret.getData() == null ? null : secret.getData().get(SlurmPaths.JWT_KEY_FILE);
        if (data == null) {
            links.unlinked(key, "its JWT Secret " + ns + "/" + cluster.jwtSecretName() + " does not exist yet or has "
                    + "no key " + SlurmPaths.JWT_KEY_FILE);
            return;
        }
        byte[] jwtKey = Base64.getDecoder().decode(data);
        URI url = url(service);
        String from = url + " " + digest(jwtKey);
        if (from.equals(madeFrom.get(key)) && links.discovered(key).isPresent()) {
            return;
        }
        SlurmTokens tokens = SlurmTokens.minting(SlurmJwt.fromKey(jwtKey, "key " + SlurmPaths.JWT_KEY_FILE
                + " of Secret " + ns + "/" + cluster.jwtSecretName()), slurmConfig.jwt().user(),
                slurmConfig.jwt().lifetime());
        RestSlurmControl rest = RestSlurmControl.at(url, tokens, slurmConfig, meters);
        String controllerPod = cluster.controllerName() + "-0";
        CompositeSlurmControl slurm = new CompositeSlurmControl(rest, SlurmConfig.NodeWrites.AUTO,
                () -> new ScontrolNodeWriter(new PodExecCommandRunner(client, ns, controllerPod,
                        Component.SLURMCTLD.role()), "scontrol", "salloc", "sbatch", slurmConfig.requestTimeout(),
                        meters));
        links.put(links.link(key, cluster.getMetadata().getName(), url.toString(), slurm, new SlurmState(),
                new HoldBook(), rest::close));
        madeFrom.put(key, from);
    }

    /**
     * The Service's cluster IP, which needs no DNS search path or cluster domain, and its port; its DNS name where it
     * has no cluster IP.
     */
    static URI url(Service service) {
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
