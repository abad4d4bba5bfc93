package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.SlurmStatefulSets;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/** The slurmctld StatefulSet. */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class ControllerDependent extends CRUDKubernetesDependentResource<StatefulSet, SlurmCluster> {

    public ControllerDependent() {
        super(StatefulSet.class);
    }

    @Override
    protected StatefulSet desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        Inputs in = Inputs.of(context);
        return SlurmStatefulSets.controller(cluster, in.files(), in.defaults());
    }

    /**
     * slurmctld runs its current template and answers: workers and slurmrestd roll only then, because a slurmd
     * with a newer slurm.conf than its controller's is refused, and a change of nodes must reach the controller
     * first.
     */
    public static class RolledOut implements Condition<StatefulSet, SlurmCluster> {
        @Override
        public boolean isMet(DependentResource<StatefulSet, SlurmCluster> dependent, SlurmCluster cluster,
                Context<SlurmCluster> context) {
            // the StatefulSet this reconcile wanted, as JOSDK computed it for the update
            String want = Workloads.configHash(((ControllerDependent) dependent).getOrComputeDesired(context));
            // The cache may still hold the StatefulSet from before this reconcile's update: its hash tells.
            return dependent.getSecondaryResource(cluster, context)
                    .map(sts -> want.equals(Workloads.configHash(sts)) && Workloads.rolledOut(sts)).orElse(false);
        }
    }
}
