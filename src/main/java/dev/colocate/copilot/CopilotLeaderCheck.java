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
 * against empty books) and every shared node has been synced once ({@link FirstSyncs}); a standby is alive but not
 * ready.
 */
@Readiness
@ApplicationScoped
public class CopilotLeaderCheck implements HealthCheck {

    @Inject
    CopilotConfig config;

    @Inject
    CopilotLeadership leadership;

    @Inject
    ClusterView view;

    @Inject
    FirstSyncs firstSyncs;

    @Override
    public HealthCheckResponse call() {
        if (!config.enabled()) {
            return HealthCheckResponse.named("copilot-leader").up().withData("role", "off").build();
        }
        String leader = leadership.leader();
        String unsynced = leadership.serving() ? unsynced(view, firstSyncs) : null;
        String state = leadership.serving() ? unsynced == null ? "serving" : "syncing"
                : leadership.leading() ? "starting" : "standby";
        var response = HealthCheckResponse.named("copilot-leader").status(state.equals("serving"))
                .withData("identity", leadership.identity())
                .withData("state", state)
                .withData("leader", leader == null ? "unknown" : leader);
        return (unsynced == null ? response : response.withData("notSyncedYet", unsynced)).build();
    }

    /** The shared nodes not synced once yet, for a message (the first ten), or null when there are none. */
    public static String unsynced(ClusterView view, FirstSyncs firstSyncs) {
        java.util.List<String> pending = firstSyncs.pending(() -> view.sharedNodes().keySet());
        if (pending.isEmpty()) {
            return null;
        }
        return pending.size() + " shared node(s): " + String.join(", ", pending.subList(0, Math.min(10,
                pending.size()))) + (pending.size() > 10 ? ", ..." : "");
    }
}
