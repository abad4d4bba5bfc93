package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmDeployments;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The slurmdbd Deployment, while spec.accounting is set. */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class AccountingDependent extends CRUDKubernetesDependentResource<Deployment, SlurmCluster> {

    public AccountingDependent() {
        super(Deployment.class);
    }

    @Override
    protected Deployment desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        Inputs in = Inputs.of(context);
        return SlurmDeployments.accounting(cluster, in.files(), in.defaults());
    }

    /** slurmdbd and its Service exist only while spec.accounting is set; they go when it is removed. */
    public static class Enabled<R extends HasMetadata> implements Condition<R, SlurmCluster> {
        @Override
        public boolean isMet(DependentResource<R, SlurmCluster> dependent, SlurmCluster cluster,
                Context<SlurmCluster> context) {
            return cluster.getSpec().getAccounting() != null;
        }
    }
}
