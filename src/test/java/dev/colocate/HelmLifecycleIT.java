package dev.colocate;

import static dev.colocate.testing.TestClusters.aCluster;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.InstallCommand;
import com.marcnuri.helm.Release;
import com.marcnuri.helm.UpgradeCommand;
import dev.colocate.api.SlurmCluster;
import dev.colocate.testing.ChartInstall;
import dev.colocate.testing.ChartedColocate;
import dev.colocate.testing.Charts;
import dev.colocate.testing.ColocateProcess;
import dev.colocate.testing.KubeHarness;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Both charts installed for real: {@code helm install} (helm-java) of helm/colocate and helm/slurm-cluster into the
 * real API server, an upgrade of each with changed values, and {@code helm uninstall}, leaving what the README says.
 * The release namespace is Pod Security restricted, and the real admission takes colocate's pods there; colocate
 * itself runs as a process (no container runtime) with the release's ServiceAccount, so that its operator turns the
 * Slurm chart's SlurmCluster into objects the controller-manager runs and the garbage collector removes.
 */
@Tag("kube")
class HelmLifecycleIT {

    static final Duration WAIT = Duration.ofSeconds(90);
    static final String RELEASE = ChartInstall.RELEASE_NAMESPACE;
    static final String SERVED = "helm-it-slurm";
    static final String APPS = "helm-it-apps";
    static final Map<String, String> COLOCATE_VALUES = Map.of("app.scheduler.image", "kube-scheduler:v1.34.0",
            "app.watchNamespaces[0]", SERVED, "app.webhook.enabled", "true");
    static final String SLURM_IMAGE = "colocate-slurm:22.05";

    @Test
    void bothChartsInstallUpgradeAndUninstallAndLeaveWhatTheReadmeSays() throws Exception {
        KubeHarness kube = KubeHarness.ensure();
        Path kubeconfig = kube.adminKubeconfig();
        try (KubernetesClient admin = kube.admin()) {
            admin.resource(new NamespaceBuilder().withNewMetadata().withName(RELEASE)
                    .addToLabels("pod-security.kubernetes.io/enforce", "restricted").endMetadata().build())
                    .serverSideApply();
            admin.resource(new NamespaceBuilder().withNewMetadata().withName(SERVED).endMetadata().build())
                    .serverSideApply();

            Release colocateRelease = colocateChart(new Helm(Charts.COLOCATE).install().withName("colocate")
                    .withNamespace(RELEASE).withKubeConfig(kubeconfig)).call();
            assertThat(colocateRelease.getStatus()).isEqualTo("deployed");
            // the restricted admission took both Deployments' pods (a refused pod is no pod, and an event)
            await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(RELEASE).list().getItems())
                    .extracting(p -> p.getMetadata().getLabels().get("app.kubernetes.io/name"))
                    .contains("colocate", "colocate-scheduler"));
            assertThat(admin.v1().events().inNamespace(RELEASE).list().getItems())
                    .filteredOn(e -> "FailedCreate".equals(e.getReason())).isEmpty();

            List<Charts.Rendered> chart = Charts.render(Charts.COLOCATE, COLOCATE_VALUES);
            ChartedColocate release = ChartedColocate.ofRelease(kube, chart);
            int webhookPort = ColocateProcess.freePort();
            try (ColocateProcess colocate = release.start(Path.of("target", "helm-lifecycle-it.log"), Map.of(
                    "colocate.webhook.tls-dir", webhookTls(admin).toString(),
                    "quarkus.http.ssl-port", String.valueOf(webhookPort)), ColocateProcess.freePort(),
                    Duration.ofHours(1))) {
                // live, not ready: without a Slurm of its own the copilot has nothing to serve
                colocate.awaitLive(WAIT);
                release.expose("colocate-webhook", "https", webhookPort, ChartedColocate.hostAddress());
                KubeHarness.namespace(admin, APPS, Map.of("colocate.dev/enabled", "true"));
                // the API server calls the chart's webhook (its caBundle, its Service, kube-proxy) on pod create
                await().atMost(WAIT).untilAsserted(() -> assertOptedIn(admin.resource(aPod("opted").in(APPS).obj())
                        .dryRun().create()));
                // an opted-in namespace's Deployment: the ReplicaSet controller's pods come out opted in
                admin.resource(new DeploymentBuilder().withNewMetadata().withName("web").withNamespace(APPS)
                        .endMetadata().withNewSpec().withReplicas(2).withNewSelector().addToMatchLabels("app", "web")
                        .endSelector().withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata()
                        .withSpec(aPod("web").obj().getSpec()).endTemplate().endSpec().build()).create();
                await().atMost(WAIT).untilAsserted(() -> assertThat(admin.pods().inNamespace(APPS)
                        .withLabel("app", "web").list().getItems()).hasSize(2)
                        .allSatisfy(HelmLifecycleIT::assertOptedIn));

                Release slurm = new Helm(Charts.SLURM_CLUSTER).install().withName("my-slurm").withNamespace(SERVED)
                        .withKubeConfig(kubeconfig).set("image", SLURM_IMAGE).call();
                assertThat(slurm.getStatus()).isEqualTo("deployed");
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(admin.apps().statefulSets().inNamespace(SERVED).withName("my-slurm-slurmctld").get())
                            .isNotNull();
                    assertThat(admin.persistentVolumeClaims().inNamespace(SERVED).list().getItems())
                            .as("the job queue's claim, made by the StatefulSet controller").isNotEmpty();
                });
                Map<String, Map<String, String>> keys = keptSecrets(admin);
                assertThat(keys).as("the chart's munge and JWT keys").hasSize(2);
                System.out.println("[helm-it] Pod Security of the operator's pods (admitted by profile): "
                        + profiles(admin));

                badInputIsReportedAndNothingIsMadeOrDeleted(admin, kubeconfig);

                // an upgrade with another image: the SlurmCluster changes and the operator rolls slurmctld; the keys
                // are looked up on the real server and stay
                new Helm(Charts.SLURM_CLUSTER).upgrade().withName("my-slurm").withNamespace(SERVED)
                        .withKubeConfig(kubeconfig).set("image", SLURM_IMAGE + ".1").call();
                await().atMost(WAIT).untilAsserted(() -> assertThat(admin.apps().statefulSets().inNamespace(SERVED)
                        .withName("my-slurm-slurmctld").get().getSpec().getTemplate().getSpec().getContainers()
                        .get(0).getImage()).isEqualTo(SLURM_IMAGE + ".1"));
                assertThat(keptSecrets(admin)).isEqualTo(keys);

                // an upgrade of colocate's chart: a new extender timeout reaches the scheduler's config and rolls it
                String before = schedulerConfigHash(admin);
                Release upgraded = colocateChart(new Helm(Charts.COLOCATE).upgrade().withName("colocate")
                        .withNamespace(RELEASE).withKubeConfig(kubeconfig)
                        .set("app.scheduler.extenderTimeout", "45s")).call();
                assertThat(upgraded.getRevision()).isEqualTo("2");
                assertThat(admin.configMaps().inNamespace(RELEASE).withName("colocate-scheduler-config").get()
                        .getData().get("config.yaml")).contains("httpTimeout: 45s");
                assertThat(schedulerConfigHash(admin)).isNotEqualTo(before);

                Helm.uninstall("my-slurm").withNamespace(SERVED).withKubeConfig(kubeconfig).call();
                await().atMost(WAIT).untilAsserted(() -> {
                    assertThat(admin.resources(SlurmCluster.class).inNamespace(SERVED).list().getItems()).isEmpty();
                    assertThat(owned(admin)).as("garbage-collected through their owner references").isEmpty();
                });
                assertThat(keptSecrets(admin)).as("helm.sh/resource-policy: keep").isEqualTo(keys);
                assertThat(admin.persistentVolumeClaims().inNamespace(SERVED).list().getItems())
                        .as("the job queue stays").isNotEmpty();
            }

            // colocate down: failurePolicy Ignore creates the pod, unchanged
            Pod unchanged = admin.resource(aPod("while-down").in(APPS).obj()).create();
            assertThat(unchanged.getSpec().getSchedulerName()).isEqualTo("default-scheduler");

            Helm.uninstall("colocate").withNamespace(RELEASE).withKubeConfig(kubeconfig).call();
            await().atMost(WAIT).untilAsserted(() -> {
                assertThat(admin.apps().deployments().inNamespace(RELEASE).list().getItems()).isEmpty();
                assertThat(admin.rbac().clusterRoles().withLabel("app.kubernetes.io/name", "colocate").list()
                        .getItems()).isEmpty();
                assertThat(admin.serviceAccounts().inNamespace(RELEASE).withName("colocate").get()).isNull();
            });
            assertThat(admin.apiextensions().v1().customResourceDefinitions().withName("slurmclusters.colocate.dev")
                    .get()).as("Helm never deletes CRDs").isNotNull();
        } finally {
            try (KubernetesClient admin = kube.admin()) {
                admin.namespaces().withName(SERVED).delete();
                admin.namespaces().withName(APPS).delete();
            }
        }
    }

    /** What the webhook does to a pod: the colocate scheduler and the shared nodes' toleration. */
    private static void assertOptedIn(Pod pod) {
        assertThat(pod.getSpec().getSchedulerName()).isEqualTo("colocate-scheduler");
        assertThat(pod.getSpec().getTolerations()).anyMatch(t -> "colocate.dev/shared".equals(t.getKey()));
    }

    /**
     * SlurmClusters the schema admits but the operator cannot run are reported in status.conditions, with the field,
     * and get nothing; a helm upgrade that makes the running cluster bad deletes nothing of it.
     */
    private static void badInputIsReportedAndNothingIsMadeOrDeleted(KubernetesClient admin, Path kubeconfig) {
        Map<String, SlurmCluster> bad = Map.of(
                "bad-bytes", aCluster("bad-bytes").withFile("slurm.conf", "SlurmctldPort=6817\n\u0000\u00ff\u0007ELF")
                        .obj(),
                "bad-secret", aCluster("bad-secret").withMungeSecret("no-such-secret").obj(),
                "bad-image", aCluster("bad-image").withImage("colocate-slurm").obj());
        Map<String, String> says = Map.of(
                "bad-bytes", "spec.slurmConfigs.filesInConfigMap[slurm.conf]: line 2 holds the control character U+0000",
                "bad-secret", "spec.mungeConfigs.secretName",
                "bad-image", "spec.image \"colocate-slurm\" has no tag or digest");
        bad.forEach((name, cluster) -> {
            cluster.getMetadata().setNamespace(SERVED);
            cluster.getMetadata().setUid(null);
            cluster.getSpec().setImage(name.equals("bad-image") ? "colocate-slurm" : SLURM_IMAGE);
            admin.resource(cluster).create();
        });
        // null until the operator's first status write
        await().atMost(WAIT).untilAsserted(() -> says.forEach((name, message) -> assertThat(configValid(admin, name))
                .as(name).isNotNull().satisfies(c -> {
                    assertThat(c.getStatus()).isEqualTo("False");
                    assertThat(c.getReason()).isEqualTo("InvalidSpec");
                    assertThat(c.getMessage()).contains(message);
                })));
        assertThat(admin.apps().statefulSets().inNamespace(SERVED).list().getItems())
                .extracting(s -> s.getMetadata().getName()).noneMatch(n -> n.startsWith("bad-"));
        bad.keySet().forEach(name -> admin.resources(SlurmCluster.class).inNamespace(SERVED).withName(name).delete());

        List<String> before = workloads(admin);
        new Helm(Charts.SLURM_CLUSTER).upgrade().withName("my-slurm").withNamespace(SERVED)
                .withKubeConfig(kubeconfig).set("image", "colocate-slurm").call();
        await().atMost(WAIT).untilAsserted(() -> assertThat(configValid(admin, "my-slurm")).isNotNull()
                .extracting(Condition::getMessage).asString().contains("has no tag or digest"));
        assertThat(workloads(admin)).as("an invalid upgrade deletes nothing").isEqualTo(before);
    }

    private static Condition configValid(KubernetesClient admin, String name) {
        SlurmCluster cluster = admin.resources(SlurmCluster.class).inNamespace(SERVED).withName(name).get();
        return cluster == null || cluster.getStatus() == null || cluster.getStatus().getConditions() == null ? null
                : cluster.getStatus().getConditions().stream().filter(c -> "ConfigValid".equals(c.getType()))
                        .findFirst().orElse(null);
    }

    private static List<String> workloads(KubernetesClient admin) {
        List<String> names = new ArrayList<>();
        admin.apps().statefulSets().inNamespace(SERVED).list().getItems().forEach(s -> names.add("statefulset/"
                + s.getMetadata().getName() + "@" + s.getMetadata().getUid()));
        admin.apps().deployments().inNamespace(SERVED).list().getItems().forEach(d -> names.add("deployment/"
                + d.getMetadata().getName() + "@" + d.getMetadata().getUid()));
        return names.stream().sorted().toList();
    }

    private static InstallCommand colocateChart(InstallCommand command) {
        COLOCATE_VALUES.forEach(command::set);
        return command;
    }

    private static UpgradeCommand colocateChart(UpgradeCommand command) {
        COLOCATE_VALUES.forEach(command::set);
        return command;
    }

    /** The webhook's certificate and key that Helm made, laid out as the Deployment's Secret volume would. */
    private static Path webhookTls(KubernetesClient admin) throws IOException {
        Path dir = Path.of("target", "helm-it-webhook-tls").toAbsolutePath();
        Files.createDirectories(dir);
        Secret tls = admin.secrets().inNamespace(RELEASE).withName("colocate-webhook-tls").get();
        for (String key : List.of("tls.crt", "tls.key")) {
            Files.write(dir.resolve(key), Base64.getDecoder().decode(tls.getData().get(key)));
        }
        return dir;
    }

    /** The chart's generated key Secrets, by name, with their data. */
    private static Map<String, Map<String, String>> keptSecrets(KubernetesClient admin) {
        Map<String, Map<String, String>> keys = new TreeMap<>();
        for (Secret s : admin.secrets().inNamespace(SERVED).list().getItems()) {
            if (s.getMetadata().getAnnotations() != null
                    && "keep".equals(s.getMetadata().getAnnotations().get("helm.sh/resource-policy"))) {
                keys.put(s.getMetadata().getName(), s.getData());
            }
        }
        return keys;
    }

    private static String schedulerConfigHash(KubernetesClient admin) {
        return admin.apps().deployments().inNamespace(RELEASE).withName("colocate-scheduler").get().getSpec()
                .getTemplate().getMetadata().getAnnotations().get("colocate.dev/config-sha256");
    }

    /** What the operator made in the served namespace that names an owner. */
    private static List<String> owned(KubernetesClient admin) {
        List<HasMetadata> all = new ArrayList<>();
        all.addAll(admin.apps().statefulSets().inNamespace(SERVED).list().getItems());
        all.addAll(admin.apps().deployments().inNamespace(SERVED).list().getItems());
        all.addAll(admin.services().inNamespace(SERVED).list().getItems());
        all.addAll(admin.configMaps().inNamespace(SERVED).list().getItems());
        return all.stream().filter(o -> !o.getMetadata().getOwnerReferences().isEmpty())
                .map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
    }

    /**
     * For each pod template the operator made, the strictest Pod Security profile whose admission takes it: a pod of
     * that template created with dryRun while the served namespace enforces the profile (its label is put back after:
     * the admission then judges only new pods, so nothing that runs is touched).
     */
    private static Map<String, String> profiles(KubernetesClient admin) {
        Map<String, PodTemplateSpec> templates = new LinkedHashMap<>();
        for (StatefulSet set : admin.apps().statefulSets().inNamespace(SERVED).list().getItems()) {
            PodTemplateSpec template = set.getSpec().getTemplate();
            // the claim volumes the StatefulSet controller adds to each of its pods
            set.getSpec().getVolumeClaimTemplates().forEach(claim -> template.getSpec().getVolumes().add(
                    new VolumeBuilder().withName(claim.getMetadata().getName()).withNewPersistentVolumeClaim()
                            .withClaimName(claim.getMetadata().getName() + "-probe").endPersistentVolumeClaim()
                            .build()));
            templates.put(set.getMetadata().getName(), template);
        }
        admin.apps().deployments().inNamespace(SERVED).list().getItems()
                .forEach(d -> templates.put(d.getMetadata().getName(), d.getSpec().getTemplate()));
        Map<String, String> admitted = new TreeMap<>();
        templates.keySet().forEach(name -> admitted.put(name, "privileged"));
        try {
            for (String profile : List.of("baseline", "restricted")) {
                admin.namespaces().withName(SERVED).edit(n -> {
                    n.getMetadata().getLabels().put("pod-security.kubernetes.io/enforce", profile);
                    return n;
                });
                templates.forEach((name, template) -> {
                    if (admits(admin, name, template, profile)) {
                        admitted.put(name, profile);
                    }
                });
            }
        } finally {
            admin.namespaces().withName(SERVED).edit(n -> {
                n.getMetadata().getLabels().remove("pod-security.kubernetes.io/enforce");
                return n;
            });
        }
        return admitted;
    }

    private static boolean admits(KubernetesClient admin, String name, PodTemplateSpec template, String profile) {
        Pod pod = new PodBuilder().withNewMetadata().withName(name + "-probe").withNamespace(SERVED).endMetadata()
                .withSpec(template.getSpec()).build();
        try {
            admin.resource(pod).dryRun().create();
            return true;
        } catch (KubernetesClientException e) {
            if (e.getCode() != 403) {
                throw e;
            }
            System.out.println("[helm-it] " + profile + " refuses " + name + ": " + e.getStatus().getMessage());
            return false;
        }
    }
}
