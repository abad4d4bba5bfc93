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

    /** The slurmctld StatefulSet, its headless Service, and the first controller's host name prefix. */
    public String controllerName() {
        return getMetadata().getName() + "-slurmctld";
    }

    /** The ReadWriteMany claim of StateSaveLocation that a backup controller shares with the first. */
    public String sharedStateClaimName() {
        return controllerName() + "-state";
    }

    /** A worker group's StatefulSet and headless Service; its pods, and Slurm nodes, are this plus an ordinal. */
    public String workerName(String groupName) {
        return getMetadata().getName() + "-worker-" + groupName;
    }

    /** The slurmrestd Deployment and Service. */
    public String restApiName() {
        return getMetadata().getName() + "-slurmrestd";
    }

    /** The slurmdbd Deployment and Service, and slurmdbd's host name. */
    public String accountingName() {
        return getMetadata().getName() + "-slurmdbd";
    }

    /** The ConfigMap of the rendered configuration files. */
    public String configMapName() {
        return getMetadata().getName() + "-slurm-config";
    }

    /** The munge key's Secret: the user's, or the one the operator generates. */
    public String mungeSecretName() {
        String named = getSpec().getMungeConfigs() == null ? null : getSpec().getMungeConfigs().getSecretName();
        return named != null ? named : generatedMungeSecretName();
    }

    /** The name of the munge key Secret the operator generates when the user names none. */
    public String generatedMungeSecretName() {
        return getMetadata().getName() + "-munge";
    }

    /** The JWT key's Secret: the user's, or the one the operator generates. */
    public String jwtSecretName() {
        String named = getSpec().getJwtConfigs() == null ? null : getSpec().getJwtConfigs().getSecretName();
        return named != null ? named : generatedJwtSecretName();
    }

    /** The name of the JWT key Secret the operator generates when the user names none. */
    public String generatedJwtSecretName() {
        return getMetadata().getName() + "-jwt";
    }

    @Override
    protected SlurmClusterSpec initSpec() {
        return new SlurmClusterSpec();
    }

    @Override
    protected SlurmClusterStatus initStatus() {
        return new SlurmClusterStatus();
    }
}
