package dev.colocate.operator;

import dev.colocate.config.OperatorConfig;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

/**
 * JOSDK's leader election for the operator, which QOSDK takes from this bean: present when
 * colocate.operator.leader-election.enabled, absent (null) otherwise. It also keeps whether this replica leads, for
 * readiness: JOSDK does not say.
 */
@ApplicationScoped
public class OperatorLeaderElection {

    private volatile boolean leading;
    private volatile String leader;

    /** Whether this replica reconciles now (JOSDK started its controllers on winning the Lease). */
    public boolean leading() {
        return leading;
    }

    /** Who holds the Lease, as last seen; null before anyone was seen. */
    public String leader() {
        return leader;
    }

    @Produces
    @Dependent
    LeaderElectionConfiguration leaderElection(OperatorConfig config) {
        OperatorConfig.LeaderElection le = config.leaderElection();
        if (!le.enabled()) {
            return null;
        }
        return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(le.leaseName())
                .withLeaseNamespace(le.namespace())
                .withLeaderCallbacks(new LeaderCallbacks(() -> leading = true, () -> leading = false, id -> leader = id))
                .build();
    }
}
