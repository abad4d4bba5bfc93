package dev.colocate.copilot;

import dev.colocate.config.CopilotConfig;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.quarkus.runtime.Quarkus;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jboss.logging.Logger;

/** Whether this replica is the active copilot (see {@link CopilotConfig.LeaderElection}). */
@ApplicationScoped
public class CopilotLeadership {

    private static final Logger LOG = Logger.getLogger(CopilotLeadership.class);

    private final KubernetesClient client;
    private final CopilotConfig config;
    private final String identity = Optional.ofNullable(System.getenv("HOSTNAME")).orElse("copilot") + "-"
            + UUID.randomUUID().toString().substring(0, 8);
    private volatile boolean leading;
    /** Whether this replica's copilot has filled its caches and listed its holds: only then can it judge a pod. */
    private volatile boolean serving;
    private volatile String leader;
    private CompletableFuture<?> election;

    @Inject
    public CopilotLeadership(KubernetesClient client, CopilotConfig config) {
        this.client = client;
        this.config = config;
    }

    /** Runs {@code onLead} on a worker once this replica leads: at once when leader election is off. */
    public void start(Runnable onLead) {
        CopilotConfig.LeaderElection le = config.leaderElection();
        if (!le.enabled()) {
            leading = true;
            Infrastructure.getDefaultWorkerPool().execute(() -> lead(onLead));
            return;
        }
        LOG.infof("copilot %s waits for Lease %s/%s", identity, le.namespace(), le.leaseName());
        election = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
                .withName(le.leaseName())
                .withLock(new LeaseLock(le.namespace(), le.leaseName(), identity))
                .withLeaseDuration(le.leaseDuration())
                .withRenewDeadline(le.renewDeadline())
                .withRetryPeriod(le.retryPeriod())
                .withReleaseOnCancel()
                .withLeaderCallbacks(new LeaderCallbacks(() -> {
                    LOG.infof("copilot %s leads", identity);
                    leading = true;
                    // on Quarkus' own executor, not the elector's thread: there the REST client's providers are
                    // looked up in the application's CDI container (seen failing with a second application per JVM)
                    Infrastructure.getDefaultWorkerPool().execute(() -> lead(onLead));
                }, () -> {
                    if (leading) {
                        // a new leader may already write shares: stop at once, the pod restarts as a standby
                        LOG.errorf("copilot %s lost its lease; exiting", identity);
                        leading = false;
                        Quarkus.asyncExit(1);
                    }
                }, newLeader -> leader = newLeader))
                .build()).build().start();
    }

    /**
     * Starts the copilot off the thread that runs Quarkus' start, so that the application serves (liveness) while the
     * caches load, however big the cluster; it is ready once they are ({@link #serving()}).
     */
    private void lead(Runnable onLead) {
        try {
            onLead.run();
        } catch (RuntimeException e) {
            if (!leading) {
                LOG.debugf(e, "copilot %s stopped while starting", identity);
                return;
            }
            // a leader that cannot start must not keep the Lease from a standby that might
            LOG.errorf(e, "copilot %s could not start; exiting", identity);
            Quarkus.asyncExit(1);
        }
    }

    public void stop() {
        // giving the lease up on shutdown is no loss of leadership: the exit below is for a lease lost while running
        leading = false;
        serving = false;
        if (election != null) {
            election.cancel(true);
        }
    }

    public boolean leading() {
        return leading;
    }

    /** The copilot's pipeline runs: its caches hold the API server's state and its holds are listed. */
    void serving(boolean value) {
        serving = value;
    }

    /** Whether this replica leads and its copilot can judge pods now; a leader still starting cannot. */
    public boolean serving() {
        return leading && serving;
    }

    /** Who leads, as far as this replica knows, or null. */
    public String leader() {
        return leading ? identity : leader;
    }

    public String identity() {
        return identity;
    }
}
