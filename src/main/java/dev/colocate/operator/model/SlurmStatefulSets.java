package dev.colocate.operator.model;

import dev.colocate.api.HeadNodeConfig;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.Map;

/** The slurmctld StatefulSet and one slurmd StatefulSet per worker group. */
public final class SlurmStatefulSets {

    private SlurmStatefulSets() {
    }

    /**
     * slurmctld, one replica, with StateSaveLocation on a claim from a volumeClaimTemplate: the claim outlives the
     * StatefulSet and the SlurmCluster, since losing it loses the job queue and the copilot's holds.
     */
    public static StatefulSet controller(SlurmCluster cluster, SlurmFiles.Rendered files, OperatorDefaults defaults) {
        HeadNodeConfig head = cluster.getSpec().getHeadNodeConfig();
        PodTemplateSpec template = SlurmPods.template(cluster, Component.SLURMCTLD, head, Map.of(), files, defaults)
                .editSpec().editFirstContainer()
                .addToVolumeMounts(new VolumeMountBuilder().withName("state").withMountPath(SlurmPaths.STATE_SAVE)
                        .build())
                .endContainer().endSpec().build();
        return new StatefulSetBuilder()
                .withNewMetadata().withName(cluster.controllerName())
                .withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withNewSpec()
                .withReplicas(1)
                .withServiceName(cluster.controllerName())
                .withNewSelector().withMatchLabels(SlurmPods.selector(cluster, Component.SLURMCTLD)).endSelector()
                .withTemplate(template)
                .addToVolumeClaimTemplates(new PersistentVolumeClaimBuilder()
                        .withNewMetadata().withName("state").endMetadata()
                        .withNewSpec().withAccessModes("ReadWriteOnce")
                        .withStorageClassName(head.getStateSaveStorage().getStorageClassName())
                        .withNewResources().addToRequests("storage",
                                new Quantity(head.getStateSaveStorage().getSize())).endResources()
                        .endSpec().build())
                .endSpec().build();
    }

    /**
     * A worker group: pods named as the group's Slurm nodes, started all at once (Parallel), each on a Kubernetes
     * node of its own (the copilot maps a Kubernetes node to one Slurm node), tolerating the shared-node taint when
     * the group is shared.
     */
    public static StatefulSet workers(SlurmCluster cluster, WorkerGroupSpec group, SlurmFiles.Rendered files,
            OperatorDefaults defaults) {
        Map<String, String> groupLabel = Map.of(Labels.WORKER_GROUP, group.getGroupName());
        var builder = SlurmPods.template(cluster, Component.SLURMD, group, groupLabel, files, defaults);
        if (group.isShared()) {
            builder.editSpec().addToTolerations(new TolerationBuilder().withKey(Labels.SHARED_TAINT)
                    .withOperator("Equal").withValue("true").withEffect("NoSchedule").build()).endSpec();
        }
        PodTemplateSpec template = builder
                .editSpec()
                .editOrNewAffinity().editOrNewPodAntiAffinity()
                .addNewRequiredDuringSchedulingIgnoredDuringExecution()
                .withTopologyKey("kubernetes.io/hostname")
                .withNewLabelSelector().addToMatchLabels(Labels.COMPONENT, Labels.COMPONENT_SLURMD).endLabelSelector()
                .withNewNamespaceSelector().endNamespaceSelector()
                .endRequiredDuringSchedulingIgnoredDuringExecution()
                .endPodAntiAffinity().endAffinity()
                .endSpec().build();
        Map<String, String> selector = new LinkedHashMap<>(SlurmPods.selector(cluster, Component.SLURMD));
        selector.putAll(groupLabel);
        Map<String, String> labels = SlurmPods.labels(cluster, Component.SLURMD);
        labels.putAll(groupLabel);
        return new StatefulSetBuilder()
                .withNewMetadata().withName(cluster.workerName(group.getGroupName()))
                .withNamespace(cluster.getMetadata().getNamespace()).withLabels(labels)
                .addToAnnotations(Labels.WORKER_GROUP_SPEC, Serialization.asJson(group)).endMetadata()
                .withNewSpec()
                .withReplicas(group.getReplicas())
                .withServiceName(SlurmServices.workersName(cluster))
                .withPodManagementPolicy("Parallel")
                .withNewSelector().withMatchLabels(selector).endSelector()
                .withTemplate(template)
                .endSpec().build();
    }
}
