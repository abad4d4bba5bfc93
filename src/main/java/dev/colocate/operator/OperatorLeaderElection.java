package dev.colocate.operator;

import dev.colocate.config.OperatorConfig;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;

/**
 * JOSDK's leader election for the operator, which QOSDK takes from this bean: present when
 * colocate.operator.leader-election.enabled, absent (null) otherwise.
 */
@ApplicationScoped
public class OperatorLeaderElection {

    @Produces
    @Dependent
    LeaderElectionConfiguration leaderElection(OperatorConfig config) {
        OperatorConfig.LeaderElection le = config.leaderElection();
        if (!le.enabled()) {
            return null;
        }
        return LeaderElectionConfigurationBuilder.aLeaderElectionConfiguration(le.leaseName())
                .withLeaseNamespace(le.namespace()).build();
    }
}
