package dev.colocate.operator;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.UnreachableSlurm;
import dev.colocate.api.Conditions;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.Crds;
import dev.colocate.testing.WorkloadControllerStandIn;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator against the mock API server: what a SlurmCluster becomes, how changes roll, and what an unusable
 * spec leaves alone. The mock runs no workload controllers, so {@link WorkloadControllerStandIn} reports the
 * StatefulSets and Deployments rolled out where a test wants them so.
 */
@QuarkusTest
@WithKubernetesTestServer(crud = true, setup = Crds.Setup.class)
@QuarkusTestResource(value = UnreachableSlurm.class, restrictToAnnotatedClass = true)
@TestProfile(SlurmClusterOperatorIT.OperatorOnly.class)
class SlurmClusterOperatorIT {

    /** The copilot stays off: these tests watch only what the operator writes. */
    public static class OperatorOnly implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("colocate.copilot.enabled", "false");
        }
    }

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    KubernetesClient client;

    private WorkloadControllerStandIn controllers;
    private String ns;

    @BeforeEach
    void namespace(org.junit.jupiter.api.TestInfo info) {
        ns = "t-" + info.getTestMethod().orElseThrow().getName().toLowerCase().replaceAll("[^a-z0-9]", "")
                .substring(0, 20);
        controllers = new WorkloadControllerStandIn(client, ns);
    }

    private SlurmCluster create(SlurmCluster cluster) {
        cluster.getMetadata().setNamespace(ns);
        cluster.getMetadata().setUid(null);
        return client.resource(cluster).create();
    }

    private SlurmCluster current(String name) {
        return client.resources(SlurmCluster.class).inNamespace(ns).withName(name).get();
    }

    private StatefulSet sts(String name) {
        return client.apps().statefulSets().inNamespace(ns).withName(name).get();
    }

    private static String hash(StatefulSet sts) {
        return sts.getSpec().getTemplate().getMetadata().getAnnotations().get(Labels.CONFIG_HASH);
    }

    private void awaitReady(String name) {
        await().atMost(WAIT).untilAsserted(() -> {
            controllers.rollOut();
            SlurmCluster c = current(name);
            // a status of an earlier generation may still say Ready: only one of the current spec counts
            assertThat(c.getStatus().getObservedGeneration()).as("observed generation of %s", name)
                    .isEqualTo(c.getMetadata().getGeneration());
            assertThat(c.getStatus().getConditions()).as("status of %s", name)
                    .anySatisfy(cond -> assertThat(cond.getType() + "=" + cond.getStatus()).isEqualTo("Ready=True"));
        });
    }

    @Test
    void aClusterBecomesItsControllerWorkersRestApiConfigAndKeys() {
        create(aCluster("demo").withGroup("cpu", 2, "4", "8Gi").withGroup("gpu", 1, "8", "32Gi").obj());

        // Workers wait for their controller: a slurmd whose slurmctld does not run yet has nothing to join.
        await().atMost(WAIT).until(() -> sts("demo-slurmctld") != null);
        assertThat(sts("demo-worker-cpu")).isNull();
        awaitReady("demo");

        assertThat(sts("demo-worker-cpu").getSpec().getReplicas()).isEqualTo(2);
        assertThat(sts("demo-worker-gpu").getSpec().getReplicas()).isEqualTo(1);
        assertThat(client.apps().deployments().inNamespace(ns).withName("demo-slurmrestd").get()).isNotNull();
        assertThat(client.apps().deployments().inNamespace(ns).withName("demo-slurmdbd").get())
                .as("no accounting, no slurmdbd").isNull();
        assertThat(client.services().inNamespace(ns).list().getItems()).extracting(s -> s.getMetadata().getName())
                .containsExactlyInAnyOrder("demo-slurmctld", "demo-workers", "demo-slurmrestd");
        ConfigMap config = client.configMaps().inNamespace(ns).withName("demo-slurm-config").get();
        assertThat(config.getData()).containsKeys("slurm.conf", "gres.conf", "cgroup.conf", "job_submit.lua");
        assertThat(config.getData().get("slurm.conf"))
                .contains("NodeName=demo-worker-cpu-[0-1] CPUs=4 RealMemory=8192 Gres=k8scpu:4,k8smemory:8192")
                .contains("PartitionName=holds Nodes=demo-worker-cpu-[0-1],demo-worker-gpu-0");
        Secret munge = client.secrets().inNamespace(ns).withName("demo-munge").get();
        Secret jwt = client.secrets().inNamespace(ns).withName("demo-jwt").get();
        assertThat(munge.getData()).containsKey("munge.key");
        assertThat(jwt.getData()).containsKey("jwt_hs256.key");
        // Kubernetes deletes what the operator made with the SlurmCluster, through the owner references.
        for (var owned : List.of(munge, jwt, config, sts("demo-worker-cpu"), sts("demo-slurmctld"))) {
            assertThat(owned.getMetadata().getOwnerReferences()).singleElement()
                    .satisfies(o -> assertThat(o.getName() + "/" + o.getKind()).isEqualTo("demo/SlurmCluster"));
        }
        SlurmCluster c = current("demo");
        assertThat(c.getStatus().getWorkers()).isEqualTo("3/3");
        assertThat(c.getStatus().getAvailableWorkers()).containsExactlyInAnyOrderEntriesOf(Map.of("cpu", 2, "gpu", 1));
        assertThat(Conditions.find(c.getStatus().getConditions(), "AccountingReady").getReason())
                .isEqualTo("Disabled");
    }

    @Test
    void aConfigChangeRollsTheControllerFirstAndTheWorkersAfterIt() {
        create(aCluster("roll").withGroup("cpu", 1, "4", "8Gi").obj());
        awaitReady("roll");
        String ctld = hash(sts("roll-slurmctld"));
        String worker = hash(sts("roll-worker-cpu"));
        String keys = client.secrets().inNamespace(ns).withName("roll-munge").get().getData().get("munge.key");

        SlurmCluster c = current("roll");
        c.getSpec().getSlurmConfigs().getFilesInConfigMap().put("slurm.conf", "SchedulerParameters=bf_continue\n");
        client.resource(c).update();

        await().atMost(WAIT).untilAsserted(() -> assertThat(hash(sts("roll-slurmctld"))).isNotEqualTo(ctld));
        assertThat(client.configMaps().inNamespace(ns).withName("roll-slurm-config").get().getData()
                .get("slurm.conf")).contains("SchedulerParameters=bf_continue");
        assertThat(hash(sts("roll-worker-cpu"))).as("workers wait for the new controller").isEqualTo(worker);

        awaitReady("roll");
        assertThat(hash(sts("roll-worker-cpu"))).isNotEqualTo(worker);
        assertThat(client.secrets().inNamespace(ns).withName("roll-munge").get().getData().get("munge.key"))
                .as("a generated key is never rewritten").isEqualTo(keys);
    }

    @Test
    void scalingAGroupUpChangesOnlyItsStatefulSetAndDownWaitsForSlurmToDrain() {
        create(aCluster("scale").withGroup("cpu", 2, "4", "8Gi").withGroup("big", 1, "16", "64Gi").obj());
        awaitReady("scale");
        String bigHash = hash(sts("scale-worker-big"));

        SlurmCluster c = current("scale");
        c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(4);
        client.resource(c).update();
        await().atMost(WAIT).untilAsserted(() -> {
            controllers.rollOut();
            assertThat(sts("scale-worker-cpu").getSpec().getReplicas()).isEqualTo(4);
            assertThat(current("scale").getStatus().getWorkers()).isEqualTo("5/5");
        });
        // The node list changed in slurm.conf, so every group's slurmd restarts with it; the big group's size did not.
        assertThat(sts("scale-worker-big").getSpec().getReplicas()).isEqualTo(1);
        assertThat(hash(sts("scale-worker-big"))).isNotEqualTo(bigHash);

        // This cluster's Slurm does not run (the mock API runs no pods): the nodes a scale-in gives up cannot be
        // drained, so none goes, and the status says why (ScaleInDrainIT drains them in a real Slurm).
        c = current("scale");
        c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(1);
        client.resource(c).update();
        await().atMost(WAIT).untilAsserted(() -> {
            controllers.rollOut();
            var workers = Conditions.find(current("scale").getStatus().getConditions(), "WorkersReady");
            assertThat(workers.getReason()).isEqualTo("ScalingIn");
            assertThat(workers.getMessage()).contains("scale-in cpu: cannot drain scale-worker-cpu-1, "
                    + "scale-worker-cpu-2, scale-worker-cpu-3 before removing them: Slurm cannot be asked");
        });
        assertThat(current("scale").getStatus().getLeavingWorkers())
                .containsExactlyInAnyOrder("scale-worker-cpu-1", "scale-worker-cpu-2", "scale-worker-cpu-3");
        assertThat(sts("scale-worker-cpu").getSpec().getReplicas()).isEqualTo(4);
    }

    @Test
    void anInvalidSpecIsReportedAndLeavesTheRunningClusterAlone() {
        create(aCluster("bad").withGroup("cpu", 3, "4", "8Gi").obj());
        awaitReady("bad");
        String resourceVersion = sts("bad-worker-cpu").getMetadata().getResourceVersion();

        SlurmCluster c = current("bad");
        c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(-1);
        c.getSpec().getSlurmConfigs().getFilesInConfigMap().put("slurm.conf", "JobSubmitPlugins=k8s_resource_completion\n");
        client.resource(c).update();

        await().atMost(WAIT).untilAsserted(() -> {
            var valid = Conditions.find(current("bad").getStatus().getConditions(), "ConfigValid");
            assertThat(valid.getStatus()).isEqualTo("False");
            assertThat(valid.getReason()).isEqualTo("InvalidSpec");
            assertThat(valid.getMessage()).contains("spec.workerGroupSpecs[cpu].replicas is -1")
                    .contains("JobSubmitPlugins=k8s_resource_completion leaves out lua");
        });
        assertThat(Conditions.find(current("bad").getStatus().getConditions(), "Ready").getStatus()).isEqualTo("False");
        assertThat(sts("bad-worker-cpu").getSpec().getReplicas()).isEqualTo(3);
        assertThat(sts("bad-worker-cpu").getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
        assertThat(client.v1().events().inNamespace(ns).list().getItems())
                .anySatisfy(e -> assertThat(e.getReason() + ":" + e.getType()).isEqualTo("ConfigInvalid:Warning"));
    }

    @Test
    void aUserSuppliedMungeSecretIsWaitedForUsedAndNeverTouched() {
        create(aCluster("own").withGroup("cpu", 1, "4", "8Gi").withMungeSecret("site-munge").obj());
        await().atMost(WAIT).untilAsserted(() -> assertThat(Conditions.find(current("own").getStatus()
                .getConditions(), "ConfigValid").getMessage())
                .contains("spec.mungeConfigs.secretName: Secret " + ns + "/site-munge does not exist"));
        assertThat(sts("own-slurmctld")).as("nothing is created before the key exists").isNull();

        client.resource(new SecretBuilder().withNewMetadata().withName("site-munge").withNamespace(ns).endMetadata()
                .addToData("munge.key", "c2l0ZS1rZXktYnl0ZXMtc2l0ZS1rZXktYnl0ZXMtc2l0ZS1rZXk=").build()).create();
        awaitReady("own");

        assertThat(client.secrets().inNamespace(ns).withName("own-munge").get()).as("no generated key").isNull();
        Secret site = client.secrets().inNamespace(ns).withName("site-munge").get();
        assertThat(site.getMetadata().getOwnerReferences()).as("the user's Secret is not the cluster's to delete")
                .isNullOrEmpty();
        assertThat(sts("own-slurmctld").getSpec().getTemplate().getSpec().getVolumes())
                .anySatisfy(v -> assertThat(v.getSecret() == null ? null : v.getSecret().getSecretName())
                        .isEqualTo("site-munge"));
    }

    @Test
    void aBackupControllerSharesAClaimThatOutlivesTheClusterAndCannotBeAddedToARunningOne() {
        SlurmCluster ha = aCluster("ha").withGroup("cpu", 1, "4", "8Gi").obj();
        ha.getSpec().getHeadNodeConfig().setBackupController(true);
        create(ha);
        awaitReady("ha");
        assertThat(sts("ha-slurmctld").getSpec().getReplicas()).isEqualTo(2);
        var claim = client.persistentVolumeClaims().inNamespace(ns).withName("ha-slurmctld-state").get();
        assertThat(claim.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(claim.getMetadata().getOwnerReferences()).as("the job queue outlives the cluster").isNullOrEmpty();

        // a running single controller keeps its claim: backup is refused, and nothing is changed
        create(aCluster("solo").withGroup("cpu", 1, "4", "8Gi").obj());
        awaitReady("solo");
        String resourceVersion = sts("solo-slurmctld").getMetadata().getResourceVersion();
        SlurmCluster solo = current("solo");
        solo.getSpec().getHeadNodeConfig().setBackupController(true);
        client.resource(solo).update();
        await().atMost(WAIT).untilAsserted(() -> {
            var valid = Conditions.find(current("solo").getStatus().getConditions(), "ConfigValid");
            assertThat(valid.getStatus()).isEqualTo("False");
            assertThat(valid.getMessage()).contains("spec.headNodeConfig.backupController: the cluster runs without "
                    + "a backup controller");
        });
        assertThat(sts("solo-slurmctld").getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
        assertThat(client.persistentVolumeClaims().inNamespace(ns).withName("solo-slurmctld-state").get()).isNull();
    }
}
