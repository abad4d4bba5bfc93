package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.api.reconciler.dependent.GarbageCollected;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;
import java.security.SecureRandom;

/**
 * A key Secret the operator generates when the SlurmCluster names none. It is only ever created, never updated: a
 * new key would lock the running daemons out of each other. It goes with the SlurmCluster (owner reference), or
 * when the user names a Secret of their own instead, once nothing mounts it any more.
 */
abstract class GeneratedKeySecretDependent extends KubernetesDependentResource<Secret, SlurmCluster>
        implements Creator<Secret, SlurmCluster>, GarbageCollected<SlurmCluster> {

    private static final SecureRandom RANDOM = new SecureRandom();

    GeneratedKeySecretDependent() {
        super(Secret.class);
    }

    @Override
    protected Secret desired(SlurmCluster cluster, Context<SlurmCluster> context) {
        byte[] key = new byte[keyBytes()];
        RANDOM.nextBytes(key);
        return build(cluster, key);
    }

    abstract int keyBytes();

    abstract Secret build(SlurmCluster cluster, byte[] key);

    /** Whether the SlurmCluster names no Secret of its own for this key, so that the operator makes one. */
    abstract boolean generated(SlurmCluster cluster);

    /** Only when the SlurmCluster names no Secret of its own for the key. */
    public static class Generated implements Condition<Secret, SlurmCluster> {
        @Override
        public boolean isMet(DependentResource<Secret, SlurmCluster> dependent, SlurmCluster cluster,
                Context<SlurmCluster> context) {
            return ((GeneratedKeySecretDependent) dependent).generated(cluster);
        }
    }
}
