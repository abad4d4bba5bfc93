package dev.colocate.operator;

import dev.colocate.config.OperatorConfig;
import io.javaoperatorsdk.operator.Operator;
import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Starts the JOSDK operator only when this process runs the operator role, and reports its readiness. QOSDK's own
 * start switch ({@code quarkus.operator-sdk.start-operator}) is fixed at build time, but the role is chosen per
 * deployment of one image, so the build turns QOSDK's switch (and its health check, which would report a deliberately
 * stopped operator as DOWN) off, and this bean decides at run time.
 */
@Readiness
@ApplicationScoped
public class OperatorRole implements HealthCheck {

    private static final Logger LOG = Logger.getLogger(OperatorRole.class);

    @Inject
    OperatorConfig config;

    @Inject
    Operator operator;

    @Inject
    KubernetesClient client;

    @Inject
    OperatorLeaderElection election;

    private static final String CRD = HasMetadata.getFullResourceName(SlurmCluster.class);
    private static final Duration CRD_POLL = Duration.ofSeconds(5);

    private final ScheduledExecutorService starter = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "colocate-operator-start");
        t.setDaemon(true);
        return t;
    });
    /** Why the operator does not reconcile yet, for readiness; null once it runs. */
    private volatile String notRunning;
    /** The last reason logged, so that each reason is logged once; touched only on the starter thread. */
    private String logged;

    void onStart(@Observes StartupEvent event) {
        if (!config.enabled()) {
            LOG.info("operator role is off (colocate.operator.enabled=false): SlurmCluster resources are not reconciled");
        } else if (operator.getRegisteredControllersNumber() == 0) {
            LOG.warn("operator role is on but no reconciler is registered");
        } else {
            notRunning = missingCrd();
            starter.execute(this::startWhenCrdExists);
        }
    }

    void onStop(@Observes ShutdownEvent event) {
        starter.shutdownNow();
    }

    private static String missingCrd() {
        return "the CRD " + CRD + " is not installed";
    }

    /**
     * Starts the operator once its CRD exists: a CRD installed after colocate (kubectl apply in the wrong order)
     * then needs no restart, and the copilot in this process serves its nodes meanwhile. An API server that cannot
     * be asked yet is asked again too. Readiness says what the operator waits for.
     */
    private void startWhenCrdExists() {
        String waiting;
        try {
            waiting = client.apiextensions().v1().customResourceDefinitions().withName(CRD).get() == null
                    ? missingCrd() : null;
        } catch (RuntimeException e) {
            waiting = "the CRD " + CRD + " could not be read: " + e.getMessage();
        }
        if (waiting != null) {
            notRunning = waiting;
            if (!waiting.equals(logged)) {
                logged = waiting;
                LOG.warnf("operator role waits: %s; SlurmCluster resources are not reconciled until then", waiting);
            }
            starter.schedule(this::startWhenCrdExists, CRD_POLL.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        try {
            operator.start();
            notRunning = null;
            LOG.info("operator role started: SlurmCluster resources are reconciled");
        } catch (RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            notRunning = cause.getMessage() == null ? cause.toString() : cause.getMessage();
            LOG.warnf(e, "operator role could not start, SlurmCluster resources are not reconciled: %s", notRunning);
        }
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder b = HealthCheckResponse.named("operator").withData("enabled", config.enabled());
        if (!config.enabled()) {
            return b.up().build();
        }
        int reconcilers = operator.getRegisteredControllersNumber();
        b.withData("reconcilers", reconcilers);
        if (reconcilers == 0) {
            return b.up().build();
        }
        String reason = notRunning;
        if (reason != null) {
            return b.down().withData("error", reason).build();
        }
        var info = operator.getRuntimeInfo();
        if (config.leaderElection().enabled()) {
            b.withData("leader", election.leading());
            if (election.leader() != null) {
                b.withData("leaseHolder", election.leader());
            }
        }
        // a standby (JOSDK has not started its controllers) is UP too: DOWN would also take the copilot of this
        // process out of its Service; OperatorStandbyTest checks it
        return b.status(info.isStarted() && info.allEventSourcesAreHealthy()).build();
    }
}
