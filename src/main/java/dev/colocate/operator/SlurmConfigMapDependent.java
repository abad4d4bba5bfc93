package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmConfigMaps;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/** The rendered slurm.conf, gres.conf, cgroup.conf, job_submit.lua (and slurmdbd.conf). */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class SlurmConfigMapDependent extends CRUDKubernetesDependentResource<ConfigMap, SlurmCluster> {

    @Override
    protected ConfigMap desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        return SlurmConfigMaps.of(cluster, Inputs.of(context).files());
    }
}
