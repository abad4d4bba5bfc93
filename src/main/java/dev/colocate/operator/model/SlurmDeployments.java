package dev.colocate.operator.model;

import dev.colocate.api.ComponentSpec;
import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.Map;

/** slurmrestd and slurmdbd: one replica each, stateless. */
public final class SlurmDeployments {

    private SlurmDeployments() {
    }

    public static Deployment restApi(SlurmCluster cluster, SlurmFiles.Rendered files, OperatorDefaults defaults) {
        return deployment(cluster, cluster.restApiName(), Component.SLURMRESTD,
                SlurmPods.template(cluster, Component.SLURMRESTD, cluster.getSpec().getSlurmrestdConfigs(), Map.of(),
                        files, defaults));
    }

    /** slurmdbd refuses to start on a host other than DbdHost, so its pod takes that host name. */
    public static Deployment accounting(SlurmCluster cluster, SlurmFiles.Rendered files, OperatorDefaults defaults) {
        ComponentSpec spec = cluster.getSpec().getSlurmdbdConfigs();
        return deployment(cluster, cluster.accountingName(), Component.SLURMDBD,
                SlurmPods.template(cluster, Component.SLURMDBD, spec, Map.of(), files, defaults)
                        .editSpec().withHostname(cluster.accountingName()).endSpec());
    }

    // Recreate: two slurmdbd writing one database, or a second slurmrestd during a roll, gain nothing.
    private static Deployment deployment(SlurmCluster cluster, String name, Component component,
            PodTemplateSpecBuilder template) {
        return new DeploymentBuilder()
                .withNewMetadata().withName(name).withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, component)).endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withNewStrategy().withType("Recreate").endStrategy()
                .withNewSelector().withMatchLabels(SlurmPods.selector(cluster, component)).endSelector()
                .withTemplate(template.build())
                .endSpec().build();
    }
}
