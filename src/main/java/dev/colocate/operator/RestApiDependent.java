package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmDeployments;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The slurmrestd Deployment. */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class RestApiDependent extends CRUDKubernetesDependentResource<Deployment, SlurmCluster> {

    public RestApiDependent() {
        super(Deployment.class);
    }

    @Override
    protected Deployment desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        Inputs in = Inputs.of(context);
        return SlurmDeployments.restApi(cluster, in.files(), in.defaults());
    }
}
