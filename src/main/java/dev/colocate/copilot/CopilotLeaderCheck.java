package dev.colocate.copilot;

import dev.colocate.config.CopilotConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready only on the leading copilot, so that the Service sends kube-scheduler's extender calls to the one replica that
 * serializes binds per node, and only once its caches and holds are loaded (a leader still starting would judge pods
 * against empty books); a standby is alive but not ready.
 */
@Readiness
@ApplicationScoped
public class CopilotLeaderCheck implements HealthCheck {

    @Inject
    CopilotConfig config;

    @Inject
    CopilotLeadership leadership;

    @Override
    public HealthCheckResponse call() {
        if (!config.enabled()) {
            return HealthCheckResponse.named("copilot-leader").up().withData("role", "off").build();
        }
        String leader = leadership.leader();
        return HealthCheckResponse.named("copilot-leader").status(leadership.serving())
                .withData("identity", leadership.identity())
                .withData("state", leadership.serving() ? "serving" : leadership.leading() ? "starting" : "standby")
                .withData("leader", leader == null ? "unknown" : leader)
                .build();
    }
}
