package dev.colocate.operator;

import dev.colocate.config.OperatorConfig;
import io.javaoperatorsdk.operator.Operator;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
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

    private volatile String startFailure;

    void onStart(@Observes StartupEvent event) {
        if (!config.enabled()) {
            LOG.info("operator role is off (colocate.operator.enabled=false): SlurmCluster resources are not reconciled");
        } else if (operator.getRegisteredControllersNumber() == 0) {
            LOG.warn("operator role is on but no reconciler is registered");
        } else {
            try {
                operator.start();
            } catch (RuntimeException e) {
                // Most often the chart's CRDs are not installed. The copilot in this process still serves its
                // nodes; readiness says why the operator does not run.
                Throwable cause = e;
                while (cause.getCause() != null) {
                    cause = cause.getCause();
                }
                startFailure = cause.getMessage() == null ? cause.toString() : cause.getMessage();
                LOG.warnf(e, "operator role could not start, SlurmCluster resources are not reconciled: %s",
                        startFailure);
            }
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
        if (startFailure != null) {
            return b.down().withData("error", startFailure).build();
        }
        var info = operator.getRuntimeInfo();
        return b.status(info.isStarted() && info.allEventSourcesAreHealthy()).build();
    }
}
