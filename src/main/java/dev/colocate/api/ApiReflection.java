package dev.colocate.api;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Jackson reads and writes the resource classes by reflection, which a native image allows only for classes named at
 * build time. The CustomResource classes are registered by the Kubernetes client extension; their parts are listed
 * here so that none is missed.
 */
@RegisterForReflection(targets = {
    GenericNode.class, GenericNodeSpec.class, GenericNodeStatus.class, AllocatedResources.class, Reservation.class,
    HoldsStatus.class,
    SlurmCluster.class, SlurmClusterSpec.class, SlurmClusterStatus.class, ComponentSpec.class, HeadNodeConfig.class,
    StateStorage.class, WorkerGroupSpec.class, SlurmConfigs.class, KeySecretConfig.class, JwtConfigs.class,
    JwtConfigs.Algorithm.class, DatabaseSpec.class
})
final class ApiReflection {

    private ApiReflection() {
    }
}
