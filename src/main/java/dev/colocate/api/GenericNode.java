package dev.colocate.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The per-node ledger of a shared node: what Slurm and Kubernetes each hold on it. Cluster-scoped and named after the
 * Kubernetes node, so {@code kubectl get genericnode} lists exactly the shared nodes.
 *
 * <p>It deliberately does not implement {@link Namespaced}: a node belongs to no namespace.
 */
@Group(GenericNode.GROUP)
@Version(GenericNode.VERSION)
@ShortNames("gn")
@AdditionalPrinterColumn(name = "ClusterName", jsonPath = ".spec.clusterName", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Alias", jsonPath = ".spec.alias", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Type", jsonPath = ".spec.type", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "AllocatedResources", jsonPath = ".status.allocatedResources",
        type = AdditionalPrinterColumn.Type.STRING)
public class GenericNode extends CustomResource<GenericNodeSpec, GenericNodeStatus> {

    public static final String GROUP = "colocate.dev";
    public static final String VERSION = "v1alpha1";

    @Override
    protected GenericNodeSpec initSpec() {
        return new GenericNodeSpec();
    }

    @Override
    protected GenericNodeStatus initStatus() {
        return new GenericNodeStatus();
    }
}
