package dev.colocate.operator;

import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import dev.colocate.operator.model.SlurmStatefulSets;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.CRUDKubernetesBulkDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One slurmd StatefulSet per worker group, of the cluster as it is to run now: a group that shrinks or leaves the
 * spec keeps the nodes a scale-in still drains, and loses its StatefulSet once they are free.
 */
@KubernetesDependent(informer = @Informer(labelSelector = ManagedDependent.SELECTOR))
public class WorkersDependent extends CRUDKubernetesDependentResource<StatefulSet, SlurmCluster>
        implements CRUDKubernetesBulkDependentResource<StatefulSet, SlurmCluster> {

    public WorkersDependent() {
        super(StatefulSet.class);
    }

    @Override
    public Map<ResourceID, StatefulSet> desiredResources(SlurmCluster cluster, Context<SlurmCluster> context) {
        Inputs in = Inputs.of(context);
        Map<ResourceID, StatefulSet> desired = new LinkedHashMap<>();
        for (WorkerGroupSpec group : in.effective().getSpec().getWorkerGroupSpecs()) {
            StatefulSet sts = SlurmStatefulSets.workers(in.effective(), group, in.files(), in.defaults());
            desired.put(ResourceID.fromResource(sts), sts);
        }
        return desired;
    }

    @Override
    public Map<ResourceID, StatefulSet> getSecondaryResources(SlurmCluster cluster, Context<SlurmCluster> context) {
        return context.getSecondaryResourcesAsStream(StatefulSet.class)
                .filter(s -> Labels.COMPONENT_SLURMD.equals(s.getMetadata().getLabels().get(Labels.COMPONENT))
                        && cluster.getMetadata().getName().equals(s.getMetadata().getLabels().get(Labels.CLUSTER)))
                .collect(Collectors.toMap(ResourceID::fromResource, Function.identity(), (a, b) -> a));
    }
}
