package dev.colocate.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code KubernetesClient} field of a test that {@link RealKubernetes} fills with a client as the cluster
 * admin: the test sets the scene with it (nodes, pods, Slurm's Secrets) while colocate, in the same JVM, runs as its
 * chart's ServiceAccount and may do only what the chart grants.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface KubeAdmin {
}
