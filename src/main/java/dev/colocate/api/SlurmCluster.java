package dev.colocate.api;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A containerized Slurm cluster: slurmctld, slurmd worker groups, optional slurmdbd and slurmrestd. */
@Group(GenericNode.GROUP)
@Version(GenericNode.VERSION)
@ShortNames("slurm")
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
        type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Workers", jsonPath = ".status.workers", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
public class SlurmCluster extends CustomResource<SlurmClusterSpec, SlurmClusterStatus> implements Namespaced {

    @Override
    protected SlurmClusterSpec initSpec() {
        return new SlurmClusterSpec();
    }

    @Override
    protected SlurmClusterStatus initStatus() {
        return new SlurmClusterStatus();
    }
}
