package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmStatefulSets;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * The ReadWriteMany claim of StateSaveLocation that a backup controller shares with the first. Only ever created:
 * it holds the job queue, so it has no owner and outlives the SlurmCluster, as the claim of a single controller's
 * volumeClaimTemplate does.
 */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class SharedStateClaimDependent extends KubernetesDependentResource<PersistentVolumeClaim, SlurmCluster>
        implements Creator<PersistentVolumeClaim, SlurmCluster> {

    public SharedStateClaimDependent() {
        super(PersistentVolumeClaim.class);
    }

    @Override
    protected PersistentVolumeClaim desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        return SlurmStatefulSets.sharedState(cluster);
    }

    /** Only with a backup controller. */
    public static class Backup implements Condition<PersistentVolumeClaim, SlurmCluster> {
        @Override
        public boolean isMet(DependentResource<PersistentVolumeClaim, SlurmCluster> dependent, SlurmCluster cluster,
                Context<SlurmCluster> context) {
            return cluster.getSpec().getHeadNodeConfig().backup();
        }
    }
}
