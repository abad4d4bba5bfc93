package dev.colocate.operator.model;

import dev.colocate.api.HeadNodeConfig;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import dev.colocate.api.StateStorage;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The slurmctld StatefulSet and one slurmd StatefulSet per worker group. */
public final class SlurmStatefulSets {

    private static final String STATE = "state";

    private SlurmStatefulSets() {
    }

    /**
     * slurmctld with StateSaveLocation on a claim that outlives the StatefulSet and the SlurmCluster, since losing it
     * loses the job queue and the copilot's holds. One replica keeps it on a claim from a volumeClaimTemplate; with a
     * backup controller, two replicas (preferably on two nodes) share the ReadWriteMany claim of
     * {@link #sharedState}.
     */
    public static StatefulSet controller(SlurmCluster cluster, SlurmFiles.Rendered files, OperatorDefaults defaults) {
        HeadNodeConfig head = cluster.getSpec().getHeadNodeConfig();
        var pod = SlurmPods.template(cluster, Component.SLURMCTLD, head, Map.of(), files, defaults)
                .editSpec().editFirstContainer()
                .addToVolumeMounts(new VolumeMountBuilder().withName(STATE).withMountPath(SlurmPaths.STATE_SAVE)
                        .build())
                .endContainer().endSpec();
        if (head.backup()) {
            pod.editSpec()
                    .addNewVolume().withName(STATE).withNewPersistentVolumeClaim()
                    .withClaimName(cluster.sharedStateClaimName()).endPersistentVolumeClaim().endVolume()
                    .editOrNewAffinity().editOrNewPodAntiAffinity()
                    .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100)
                    .withNewPodAffinityTerm().withTopologyKey("kubernetes.io/hostname")
                    .withNewLabelSelector().withMatchLabels(SlurmPods.selector(cluster, Component.SLURMCTLD))
                    .endLabelSelector().endPodAffinityTerm()
                    .endPreferredDuringSchedulingIgnoredDuringExecution()
                    .endPodAntiAffinity().endAffinity()
                    .endSpec();
        }
        var spec = new StatefulSetBuilder()
                .withNewMetadata().withName(cluster.controllerName())
                .withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withNewSpec()
                .withReplicas(head.backup() ? 2 : 1)
                .withServiceName(cluster.controllerName())
                .withNewSelector().withMatchLabels(SlurmPods.selector(cluster, Component.SLURMCTLD)).endSelector()
                .withTemplate(pod.build());
        if (!head.backup()) {
            spec.addToVolumeClaimTemplates(new PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName(STATE).endMetadata()
                    .withSpec(stateClaim(head.getStateSaveStorage(), "ReadWriteOnce")).build());
        }
        return spec.endSpec().build();
    }

    /** The ReadWriteMany claim a backup controller shares with the first; no owner, so it outlives the cluster. */
    public static PersistentVolumeClaim sharedState(SlurmCluster cluster) {
        return new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName(cluster.sharedStateClaimName())
                .withNamespace(cluster.getMetadata().getNamespace())
                .withLabels(SlurmPods.labels(cluster, Component.SLURMCTLD)).endMetadata()
                .withSpec(stateClaim(cluster.getSpec().getHeadNodeConfig().getStateSaveStorage(), "ReadWriteMany"))
                .build();
    }

    private static PersistentVolumeClaimSpec stateClaim(StateStorage storage, String accessMode) {
        return new PersistentVolumeClaimSpecBuilder().withAccessModes(accessMode)
                .withStorageClassName(storage.getStorageClassName())
                .withNewResources().addToRequests("storage", new Quantity(storage.getSize())).endResources()
                .build();
    }

    /**
     * Why the StatefulSet that runs cannot become {@code desired}, or null: a StatefulSet's volumeClaimTemplates
     * cannot change, and the claims they made hold the job queue, so the backup controller and stateSaveStorage are
     * chosen when the cluster is created.
     */
    public static String stateChange(StatefulSet running, StatefulSet desired) {
        if (running == null) {
            return null;
        }
        List<PersistentVolumeClaim> was = running.getSpec().getVolumeClaimTemplates();
        List<PersistentVolumeClaim> want = desired.getSpec().getVolumeClaimTemplates();
        if (was.isEmpty() != want.isEmpty()) {
            return "spec.headNodeConfig.backupController: the cluster runs " + (was.isEmpty() ? "with" : "without")
                    + " a backup controller, and its job queue stays on the claim it has; this is chosen when the "
                    + "SlurmCluster is created";
        }
        if (!was.isEmpty() && !was.get(0).getSpec().getResources().equals(want.get(0).getSpec().getResources())
                || !was.isEmpty() && !java.util.Objects.equals(was.get(0).getSpec().getStorageClassName(),
                        want.get(0).getSpec().getStorageClassName())) {
            PersistentVolumeClaimSpec claim = was.get(0).getSpec();
            return "spec.headNodeConfig.stateSaveStorage: the job queue's claim was made with size "
                    + claim.getResources().getRequests().get("storage") + " and storage class "
                    + (claim.getStorageClassName() == null ? "(default)" : claim.getStorageClassName())
                    + ", which a StatefulSet cannot change; set them back (resize the claim itself if its class "
                    + "allows)";
        }
        return null;
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
