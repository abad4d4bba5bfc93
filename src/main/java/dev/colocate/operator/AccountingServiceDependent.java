package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmServices;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** slurmdbd's Service, while spec.accounting is set. */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class AccountingServiceDependent extends CRUDKubernetesDependentResource<Service, SlurmCluster> {

    public AccountingServiceDependent() {
        super(Service.class);
    }

    @Override
    protected Service desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        return SlurmServices.accounting(cluster);
    }
}
