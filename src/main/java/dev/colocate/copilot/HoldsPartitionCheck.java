package dev.colocate.copilot;

import dev.colocate.config.CopilotConfig;
import dev.colocate.config.SlurmConfig;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmNotFoundException;
import dev.colocate.slurm.SlurmPartition;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * In hold mode, ready only while Slurm's holds partition exists, covers every shared node and is closed to other
 * users: without it no hold can be granted, and an open one lets any user's job jump every queue. The copilot must
 * say so rather than fall back to anything silently.
 */
@Readiness
@ApplicationScoped
public class HoldsPartitionCheck implements AsyncHealthCheck {

    static final String NAME = "slurm-holds-partition";

    @Inject
    CopilotConfig config;

    @Inject
    SlurmControl slurm;

    @Inject
    SlurmConfig slurmConfig;

    @Inject
    ClusterView view;

    @Override
    public Uni<HealthCheckResponse> call() {
        if (!config.enabled() || config.shareMode() != CopilotConfig.ShareMode.HOLD) {
            return Uni.createFrom().item(HealthCheckResponse.named(NAME).up()
                    .withData("shareMode", config.enabled() ? "gres" : "copilot off").build());
        }
        if (!slurmConfig.enabled()) {
            // a SlurmCluster's slurm.conf always has the partition, rendered by the operator
            return Uni.createFrom().item(HealthCheckResponse.named(NAME).up()
                    .withData("configuredSlurm", "off (colocate.slurm.enabled=false)").build());
        }
        String name = config.holdsPartition();
        return slurm.partition(name)
                .map(this::covering)
                .onFailure(SlurmNotFoundException.class).recoverWithItem(e -> down("Slurm has no partition " + name
                        + ": add PartitionName=" + name + " Nodes=<the shared nodes> PriorityTier=65000 "
                        + "PreemptMode=OFF MaxTime=INFINITE Hidden=YES RootOnly=YES to slurm.conf "
                        + "(colocate.copilot.share-mode=hold holds Kubernetes' share there)"))
                .onFailure().recoverWithItem(e -> down("the holds partition " + name + " could not be read: "
                        + e.getMessage()));
    }

    private HealthCheckResponse covering(SlurmPartition partition) {
        List<String> missing = !view.started() ? List.of() : view.sharedNodes().values().stream()
                .filter(s -> s.namespace() == null).map(SharedNode::alias)
                .filter(a -> !partition.nodes().contains(a)).sorted().toList();
        if (!missing.isEmpty()) {
            return down("Slurm partition " + partition.name() + " does not cover shared node(s) " + missing
                    + ": no hold can be granted there; add them to its Nodes= in slurm.conf");
        }
        if (partition.access() == SlurmPartition.Access.OPEN) {
            return down("Slurm partition " + partition.name() + " is open to every Slurm user: its top priority "
                    + "lets any job jump every queue, and a job named as a hold is not Kubernetes' share; add "
                    + "RootOnly=YES to its PartitionName line in slurm.conf and run scontrol reconfigure");
        }
        var up = HealthCheckResponse.named(NAME).up().withData("partition", partition.name());
        if (partition.access() == SlurmPartition.Access.UNSHOWN) {
            up.withData("access", "slurmrestd does not show who may submit there; slurm.conf must say RootOnly=YES");
        }
        return up.build();
    }

    private HealthCheckResponse down(String reason) {
        return HealthCheckResponse.named(NAME).down().withData("error", reason).build();
    }
}
