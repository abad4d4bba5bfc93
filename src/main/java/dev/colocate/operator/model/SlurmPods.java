package dev.colocate.operator.model;

import dev.colocate.api.ComponentSpec;
import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The parts every Slurm pod template shares: labels, the main container, the config and key volumes. */
public final class SlurmPods {

    /** Secret files are read by the entrypoint as root, which hands them to munge and Slurm with their owners. */
    private static final int OWNER_READ_ONLY = 0400;

    private SlurmPods() {
    }

    /** The labels of a component's objects and pods; the copilot finds slurmd pods by the colocate.dev ones. */
    public static Map<String, String> labels(SlurmCluster cluster, Component component) {
        Map<String, String> labels = new LinkedHashMap<>(selector(cluster, component));
        labels.put("app.kubernetes.io/name", "slurm");
        labels.put("app.kubernetes.io/instance", cluster.getMetadata().getName());
        labels.put("app.kubernetes.io/component", component.role());
        labels.put(Labels.MANAGED_BY, Labels.MANAGER);
        return labels;
    }

    /** The labels that select a component's pods. */
    public static Map<String, String> selector(SlurmCluster cluster, Component component) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(Labels.CLUSTER, cluster.getMetadata().getName());
        labels.put(Labels.COMPONENT, component.role());
        return labels;
    }


    /**
     * A component's pod template: its labels plus {@code extraLabels}, the config hash, the user's pod settings, and
     * one container that runs the image's entrypoint with the component's role.
     */
    public static PodTemplateSpecBuilder template(SlurmCluster cluster, Component component, ComponentSpec spec,
            Map<String, String> extraLabels, SlurmFiles.Rendered files, OperatorDefaults defaults) {
        boolean jwt = component != Component.SLURMD;
        List<String> secrets = new ArrayList<>(List.of(cluster.mungeSecretName()));
        if (jwt) {
            secrets.add(cluster.jwtSecretName());
        }
        Map<String, String> labels = labels(cluster, component);
        labels.putAll(extraLabels);
        List<Volume> volumes = new ArrayList<>();
        List<VolumeMount> mounts = new ArrayList<>();
        volumes.add(new VolumeBuilder().withName("slurm-config").withNewConfigMap()
                .withName(cluster.configMapName()).endConfigMap().build());
        mounts.add(mount("slurm-config", SlurmPaths.CONFIG_DIR));
        volumes.add(secretVolume("munge-key", cluster.mungeSecretName()));
        mounts.add(mount("munge-key", SlurmPaths.MUNGE_KEY_DIR));
        if (jwt) {
            volumes.add(secretVolume("jwt-key", cluster.jwtSecretName()));
            mounts.add(mount("jwt-key", SlurmPaths.JWT_KEY_DIR));
        }
        volumes.addAll(spec.getVolumes());
        mounts.addAll(spec.getVolumeMounts());

        Container container = new ContainerBuilder()
                .withName(component.role())
                .withImage(Images.of(cluster, spec, defaults))
                .withImagePullPolicy("IfNotPresent")
                .withCommand(SlurmPaths.ENTRYPOINT, component.role())
                .withEnv(env(cluster, component, spec))
                .addNewPort().withName(component.role()).withContainerPort(component.port()).endPort()
                .withNewReadinessProbe().withNewTcpSocket().withNewPort(component.port()).endTcpSocket()
                .withPeriodSeconds(5).endReadinessProbe()
                .withResources(spec.getResources())
                .withSecurityContext(spec.getSecurityContext())
                .withVolumeMounts(mounts)
                .build();
        String domain = cluster.getMetadata().getNamespace() + ".svc." + defaults.clusterDomain();
        PodSpecBuilder pod = new PodSpecBuilder()
                .withContainers(container)
                .withVolumes(volumes)
                .withImagePullSecrets(spec.getImagePullSecrets())
                .withNodeSelector(spec.getNodeSelector().isEmpty() ? null : spec.getNodeSelector())
                .withTolerations(spec.getTolerations())
                .withAffinity(spec.getAffinity())
                .withSecurityContext(podSecurity(spec.getPodSecurityContext()))
                // Slurm finds its daemons by host name: node names resolve in the workers' Service, the
                // controller's in its own.
                .withNewDnsConfig().withSearches(SlurmServices.workersName(cluster) + "." + domain,
                        cluster.controllerName() + "." + domain).endDnsConfig()
                .withEnableServiceLinks(false);
        return new PodTemplateSpecBuilder()
                .withNewMetadata().withLabels(labels)
                .addToAnnotations(Labels.CONFIG_HASH, ConfigHash.of(component, files.files(),
                        secrets.toArray(String[]::new)))
                .endMetadata()
                .withSpec(pod.build());
    }

    /**
     * The user's pod security context, with the container runtime's seccomp profile where it names none: every Slurm
     * daemon runs under it, and Pod Security's baseline and restricted profiles refuse {@code Unconfined}. The rest
     * of restricted (non-root, no capabilities) the image's entrypoint cannot meet: it starts as root to hand the
     * keys to munge and SlurmUser, and slurmd stays root to start jobs as their users.
     */
    static PodSecurityContext podSecurity(PodSecurityContext user) {
        if (user != null && user.getSeccompProfile() != null) {
            return user;
        }
        return new PodSecurityContextBuilder(user == null ? new PodSecurityContext() : user)
                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build();
    }

    private static List<EnvVar> env(SlurmCluster cluster, Component component, ComponentSpec spec) {
        List<EnvVar> env = new ArrayList<>();
        env.add(new EnvVar("SLURM_CONF", SlurmPaths.SLURM_CONF, null));
        env.add(new EnvVar("MUNGE_KEY_FILE", SlurmPaths.MUNGE_KEY, null));
        if (component != Component.SLURMD) {
            env.add(new EnvVar("SLURM_JWT_KEY_FILE", SlurmPaths.JWT_KEY, null));
        }
        // slurmd is started as the Slurm node of its pod's name (slurmd -N).
        env.add(new EnvVarBuilder().withName("POD_NAME").withNewValueFrom().withNewFieldRef()
                .withFieldPath("metadata.name").endFieldRef().endValueFrom().build());
        if (component == Component.SLURMD && spec instanceof WorkerGroupSpec group) {
            int gpus = WorkerSize.of(group).map(WorkerSize::gpus).orElse(0);
            if (gpus > 0) {
                env.add(new EnvVar(SlurmPaths.ENV_GPUS, String.valueOf(gpus), null));
            }
        }
        if (component == Component.SLURMDBD && cluster.getSpec().getAccounting() != null) {
            env.add(password(SlurmPaths.ENV_STORAGE_PASS, cluster.getSpec().getAccounting()));
        }
        if (component == Component.SLURMCTLD && cluster.getSpec().getJobComp() != null) {
            env.add(password(SlurmPaths.ENV_JOBCOMP_PASS, cluster.getSpec().getJobComp()));
        }
        return env;
    }

    private static EnvVar password(String name, DatabaseSpec db) {
        return new EnvVarBuilder().withName(name).withNewValueFrom()
                .withSecretKeyRef(db.getPasswordSecretRef()).endValueFrom().build();
    }

    private static Volume secretVolume(String name, String secret) {
        return new VolumeBuilder().withName(name).withNewSecret().withSecretName(secret)
                .withDefaultMode(OWNER_READ_ONLY).endSecret().build();
    }

    private static VolumeMount mount(String name, String path) {
        return new VolumeMountBuilder().withName(name).withMountPath(path).withReadOnly(true).build();
    }
}
