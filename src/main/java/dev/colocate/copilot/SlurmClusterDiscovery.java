package dev.colocate.copilot;

import dev.colocate.api.SlurmCluster;
import dev.colocate.config.OperatorConfig;
import dev.colocate.config.SlurmConfig;
import dev.colocate.slurm.ClusterSlurms;
import dev.colocate.slurm.SlurmMeters;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Finds the Slurm of every SlurmCluster by itself, through its slurmrestd Service and the JWT Secret the operator made
 * (or the user named; see {@link ClusterSlurms}), and makes a {@link SlurmLink} to it. Runs at start, every resync,
 * and at a poll that finds a shared node whose SlurmCluster has no link yet.
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

    @Inject
    OperatorConfig operatorConfig;

    /** The connection behind each link: a new Service address or key makes a new one, and with it a new link. */
    private final Map<String, ClusterSlurms.Connection> connections = new ConcurrentHashMap<>();

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
            clusters = watchedClusters();
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
                connections.remove(link.key());
                links.remove(link.key());
            }
        }
    }

    /**
     * The SlurmClusters of the namespaces colocate serves: listed per namespace unless it serves all, because its
     * RBAC grants SlurmClusters (and their Secrets) only in those namespaces.
     */
    private List<SlurmCluster> watchedClusters() {
        if (operatorConfig.allNamespaces()) {
            return client.resources(SlurmCluster.class).inAnyNamespace().list().getItems();
        }
        List<SlurmCluster> clusters = new ArrayList<>();
        for (String namespace : operatorConfig.namespaces()) {
            clusters.addAll(client.resources(SlurmCluster.class).inNamespace(namespace).list().getItems());
        }
        return clusters;
    }

    private void link(String key, SlurmCluster cluster) {
        try {
            ClusterSlurms.Connection previous = connections.get(key);
            ClusterSlurms.Connection now = ClusterSlurms.connect(client, cluster, slurmConfig, meters, previous);
            if (now != previous) {
                // the link replaced closes the connection it had
                links.put(links.link(key, cluster.getMetadata().getName(), now.url().toString(), now.slurm(),
                        new SlurmState(), new HoldBook(), now.close()));
                connections.put(key, now);
            }
        } catch (ClusterSlurms.Unreachable e) {
            links.unlinked(key, e.getMessage());
        }
    }
}
