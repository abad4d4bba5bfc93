package dev.colocate.operator.model;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The pure builders of the operator's StatefulSets, Deployments, Services and Secrets. */
class SlurmWorkloadsTest {

    private static final OperatorDefaults DEFAULTS = new OperatorDefaults("colocate/slurm:22.05", "cluster.local");

    private static SlurmCluster cluster() {
        return aCluster("c").withGroup("cpu", 2, "4", "8Gi").withGroup("batch", 1, "8", "16Gi").unshared()
                .withAccounting("db", "slurm", "db-pass", "password").obj();
    }

    private static SlurmFiles.Rendered files(SlurmCluster cluster) {
        return SlurmFiles.render(cluster, "-- lua\n");
    }

    /** Every component's pod template, by role. */
    private static Map<String, PodTemplateSpec> templates(SlurmCluster c) {
        SlurmFiles.Rendered f = files(c);
        return Map.of(
                "slurmctld", SlurmStatefulSets.controller(c, f, DEFAULTS).getSpec().getTemplate(),
                "slurmd", SlurmStatefulSets.workers(c, c.getSpec().getWorkerGroupSpecs().get(0), f, DEFAULTS)
                        .getSpec().getTemplate(),
                "slurmrestd", SlurmDeployments.restApi(c, f, DEFAULTS).getSpec().getTemplate(),
                "slurmdbd", SlurmDeployments.accounting(c, f, DEFAULTS).getSpec().getTemplate());
    }

    private static String hash(PodTemplateSpec t) {
        return t.getMetadata().getAnnotations().get(Labels.CONFIG_HASH);
    }

    /** A change to one file, and the components whose pods it must roll. */
    static Stream<Arguments> changes() {
        return Stream.of(
                Arguments.of("slurm.conf", "SchedulerParameters=bf_continue\n",
                        List.of("slurmctld", "slurmd", "slurmrestd")),
                Arguments.of("gres.conf", "NodeName=c-worker-cpu-0 Name=gpu File=/dev/nvidia0\n",
                        List.of("slurmctld", "slurmd")),
                Arguments.of("cgroup.conf", "ConstrainCores=yes\n", List.of("slurmctld", "slurmd")),
                Arguments.of("job_submit.lua", "-- site\n", List.of("slurmctld")),
                Arguments.of("slurmdbd.conf", "DebugLevel=info\n", List.of("slurmdbd")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("changes")
    void aFileChangeRollsExactlyTheComponentsThatReadIt(String file, String text, List<String> rolled) {
        SlurmCluster before = cluster();
        SlurmCluster after = cluster();
        after.getSpec().getSlurmConfigs().getFilesInConfigMap().put(file, text);
        Map<String, PodTemplateSpec> a = templates(before);
        Map<String, PodTemplateSpec> b = templates(after);
        for (String role : a.keySet()) {
            assertThat(hash(b.get(role))).as(role).matches(h -> rolled.contains(role) != h.equals(hash(a.get(role))));
        }
    }

    @Test
    void everyPodRunsTheEntrypointWithItsRoleAndReadsConfigAndKeysFromMountsOnly() {
        templates(cluster()).forEach((role, t) -> {
            PodSpec pod = t.getSpec();
            var container = pod.getContainers().get(0);
            assertThat(container.getCommand()).as(role).containsExactly(SlurmPaths.ENTRYPOINT, role);
            assertThat(container.getImage()).isEqualTo("colocate/slurm:24.11");
            assertThat(t.getMetadata().getLabels()).containsEntry(Labels.CLUSTER, "c")
                    .containsEntry(Labels.COMPONENT, role).containsEntry(Labels.MANAGED_BY, "colocate");
            assertThat(pod.getVolumes()).extracting(SlurmWorkloadsTest::source)
                    .contains("configMap:c-slurm-config", "secret:c-munge");
            // slurmd takes no JWT: only the daemons that verify tokens read the key
            assertThat(pod.getVolumes().stream().map(SlurmWorkloadsTest::source).anyMatch("secret:c-jwt"::equals))
                    .as(role).isEqualTo(!role.equals("slurmd"));
            assertThat(pod.getDnsConfig().getSearches())
                    .containsExactly("c-workers.slurm.svc.cluster.local", "c-slurmctld.slurm.svc.cluster.local");
        });
        var dbd = templates(cluster()).get("slurmdbd").getSpec();
        assertThat(dbd.getHostname()).as("slurmdbd starts only on DbdHost").isEqualTo("c-slurmdbd");
        assertThat(dbd.getContainers().get(0).getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo(SlurmPaths.ENV_STORAGE_PASS);
            assertThat(e.getValueFrom().getSecretKeyRef().getName()).isEqualTo("db-pass");
        });
    }

    private static String source(Volume v) {
        return v.getConfigMap() != null ? "configMap:" + v.getConfigMap().getName()
                : v.getSecret() != null ? "secret:" + v.getSecret().getSecretName() : v.getName();
    }

    @Test
    void workersAreNamedAsTheirSlurmNodesOnePerKubernetesNodeTheSharedOnesTolerant() {
        SlurmCluster c = cluster();
        Function<Integer, StatefulSet> group = i ->
                SlurmStatefulSets.workers(c, c.getSpec().getWorkerGroupSpecs().get(i), files(c), DEFAULTS);
        StatefulSet cpu = group.apply(0);
        StatefulSet batch = group.apply(1);
        assertThat(cpu.getMetadata().getName()).isEqualTo("c-worker-cpu");
        assertThat(cpu.getSpec().getReplicas()).isEqualTo(2);
        assertThat(cpu.getSpec().getServiceName()).isEqualTo("c-workers");
        assertThat(cpu.getSpec().getPodManagementPolicy()).isEqualTo("Parallel");
        assertThat(cpu.getSpec().getSelector().getMatchLabels()).containsEntry(Labels.WORKER_GROUP, "cpu");
        var anti = cpu.getSpec().getTemplate().getSpec().getAffinity().getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution();
        assertThat(anti).singleElement().satisfies(term -> {
            assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
            assertThat(term.getLabelSelector().getMatchLabels()).containsEntry(Labels.COMPONENT, "slurmd");
        });
        assertThat(cpu.getSpec().getTemplate().getSpec().getTolerations())
                .anySatisfy(t -> assertThat(t.getKey()).isEqualTo(Labels.SHARED_TAINT));
        assertThat(batch.getSpec().getTemplate().getSpec().getTolerations()).as("not shared").isEmpty();
    }

    @Test
    void theControllerKeepsItsStateOnAClaimOfTheRequestedSize() {
        SlurmCluster c = cluster();
        c.getSpec().getHeadNodeConfig().getStateSaveStorage().setSize("5Gi");
        c.getSpec().getHeadNodeConfig().getStateSaveStorage().setStorageClassName("fast");
        StatefulSet ctld = SlurmStatefulSets.controller(c, files(c), DEFAULTS);
        assertThat(ctld.getSpec().getServiceName()).isEqualTo("c-slurmctld");
        var claim = ctld.getSpec().getVolumeClaimTemplates().get(0);
        assertThat(claim.getSpec().getResources().getRequests().get("storage").toString()).isEqualTo("5Gi");
        assertThat(claim.getSpec().getStorageClassName()).isEqualTo("fast");
        assertThat(ctld.getSpec().getTemplate().getSpec().getContainers().get(0).getVolumeMounts())
                .anySatisfy(m -> assertThat(m.getName() + ":" + m.getMountPath()).isEqualTo("state:"
                        + SlurmPaths.STATE_SAVE));
    }

    @Test
    void aBackupControllerIsASecondReplicaSharingOneReadWriteManyClaimAndASecondSlurmctldHost() {
        SlurmCluster c = cluster();
        c.getSpec().getHeadNodeConfig().setBackupController(true);
        c.getSpec().getHeadNodeConfig().getStateSaveStorage().setStorageClassName("nfs");
        StatefulSet ctld = SlurmStatefulSets.controller(c, files(c), DEFAULTS);

        assertThat(ctld.getSpec().getReplicas()).isEqualTo(2);
        assertThat(ctld.getSpec().getVolumeClaimTemplates()).as("per-pod claims would split the queue").isEmpty();
        PodSpec pod = ctld.getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("state");
            assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("c-slurmctld-state");
        });
        assertThat(pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
                .singleElement().satisfies(t -> assertThat(t.getPodAffinityTerm().getTopologyKey())
                        .isEqualTo("kubernetes.io/hostname"));
        var claim = SlurmStatefulSets.sharedState(c);
        assertThat(claim.getMetadata().getName()).isEqualTo("c-slurmctld-state");
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(claim.getSpec().getStorageClassName()).isEqualTo("nfs");
        assertThat(claim.getMetadata().getOwnerReferences()).as("the job queue outlives the cluster").isEmpty();

        String conf = files(c).files().get(SlurmFiles.SLURM_CONF);
        assertThat(conf.lines().filter(l -> l.startsWith("SlurmctldHost="))).containsExactly(
                "SlurmctldHost=c-slurmctld-0(c-slurmctld-0.c-slurmctld)",
                "SlurmctldHost=c-slurmctld-1(c-slurmctld-1.c-slurmctld)");
    }

    /** Changes a running controller cannot take: its claims hold the job queue. */
    static Stream<Arguments> stateChanges() {
        return Stream.of(
                Arguments.of("nothing", (java.util.function.Consumer<SlurmCluster>) c -> { }, null),
                Arguments.of("a backup", (java.util.function.Consumer<SlurmCluster>) c -> c.getSpec()
                        .getHeadNodeConfig().setBackupController(true), "spec.headNodeConfig.backupController"),
                Arguments.of("a larger claim", (java.util.function.Consumer<SlurmCluster>) c -> c.getSpec()
                        .getHeadNodeConfig().getStateSaveStorage().setSize("9Gi"),
                        "spec.headNodeConfig.stateSaveStorage"),
                Arguments.of("another class", (java.util.function.Consumer<SlurmCluster>) c -> c.getSpec()
                        .getHeadNodeConfig().getStateSaveStorage().setStorageClassName("other"),
                        "spec.headNodeConfig.stateSaveStorage"),
                Arguments.of("an image", (java.util.function.Consumer<SlurmCluster>) c -> c.getSpec()
                        .getHeadNodeConfig().setImage("slurm:new"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stateChanges")
    void aRunningControllerRefusesToMoveItsJobQueue(String change, java.util.function.Consumer<SlurmCluster> edit,
            String problemStartsWith) {
        SlurmCluster c = cluster();
        StatefulSet running = SlurmStatefulSets.controller(c, files(c), DEFAULTS);
        edit.accept(c);
        String problem = SlurmStatefulSets.stateChange(running, SlurmStatefulSets.controller(c, files(c), DEFAULTS));
        if (problemStartsWith == null) {
            assertThat(problem).isNull();
        } else {
            assertThat(problem).startsWith(problemStartsWith);
        }
        assertThat(SlurmStatefulSets.stateChange(null, running)).as("a new cluster").isNull();
    }

    @Test
    void servicesHeadlessForSlurmNamesAndClusterIpForTheApis() {
        SlurmCluster c = cluster();
        assertThat(SlurmServices.controller(c).getSpec().getClusterIP()).isEqualTo("None");
        assertThat(SlurmServices.controller(c).getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(SlurmServices.workers(c).getSpec().getSelector()).containsEntry(Labels.COMPONENT, "slurmd")
                .containsEntry(Labels.CLUSTER, "c");
        assertThat(SlurmServices.restApi(c).getSpec().getPorts().get(0).getPort()).isEqualTo(6820);
        assertThat(SlurmServices.accounting(c).getMetadata().getName()).isEqualTo("c-slurmdbd");
    }

    @Test
    void generatedKeysAreSecretsWithTheFileNamesSlurmReads() {
        SlurmCluster c = cluster();
        byte[] key = new byte[] {1, 2, 3};
        assertThat(KeySecrets.munge(c, key).getData())
                .containsExactly(Map.entry("munge.key", Base64.getEncoder().encodeToString(key)));
        String pem = JwtKeys.newPem();
        assertThat(KeySecrets.jwt(c, key, pem).getMetadata().getName()).isEqualTo("c-jwt");
        assertThat(KeySecrets.jwt(c, key, pem).getData()).containsOnlyKeys("jwt_hs256.key", "jwt_rs256.key")
                .containsEntry("jwt_rs256.key", Base64.getEncoder().encodeToString(pem.getBytes()));
        assertThat(JwtKeys.privateKey(pem, "generated").getModulus().bitLength()).isEqualTo(2048);
    }
}
