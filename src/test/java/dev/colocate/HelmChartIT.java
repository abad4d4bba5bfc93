package dev.colocate;

import static dev.colocate.testing.Charts.COLOCATE;
import static dev.colocate.testing.Charts.find;
import static dev.colocate.testing.Charts.get;
import static dev.colocate.testing.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import dev.colocate.api.Labels;
import dev.colocate.scheduler.ExtenderResource;
import dev.colocate.scheduler.PodOptIn;
import dev.colocate.scheduler.WebhookResource;
import dev.colocate.testing.Charts;
import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import jakarta.ws.rs.Path;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** helm/colocate rendered and linted by real Helm, checked for what a cluster would do with it. */
class HelmChartIT {

    private static final String KUBE_SCHEDULER = "kube-scheduler:v1.31.4";
    private static final Map<String, String> SCHEDULER = Map.of("app.scheduler.image", KUBE_SCHEDULER);

    @TempDir
    java.nio.file.Path temp;

    private static Container onlyContainer(Deployment deployment) {
        assertThat(deployment.getSpec().getTemplate().getSpec().getContainers()).hasSize(1);
        return deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    private static String envValue(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no env " + name)).getValue();
    }

    private static String pathOf(Class<?> resource, String method) {
        return Stream.concat(Stream.of(resource.getAnnotation(Path.class).value()),
                Arrays.stream(resource.getMethods()).filter(m -> m.getName().equals(method))
                        .map(m -> m.getAnnotation(Path.class).value()))
                .reduce("", String::concat);
    }

    /** The Service port a client calls on {@code port}, checked to lead to {@code containerPort} of colocate's pods. */
    private static void serviceLeadsToColocate(List<Rendered> objects, String name, int port, int containerPort) {
        Service service = get(objects, "Service", name).as(Service.class);
        ServicePort servicePort = service.getSpec().getPorts().stream().filter(p -> p.getPort() == port).findFirst()
                .orElseThrow(() -> new AssertionError("Service " + name + " has no port " + port));
        assertThat(servicePort.getTargetPort().getIntVal()).isEqualTo(containerPort);
        assertThat(service.getSpec().getSelector())
                .isEqualTo(get(objects, "Deployment", "colocate").as(Deployment.class).getSpec().getSelector()
                        .getMatchLabels());
    }

    private static String configured(String property) throws IOException {
        Properties properties = new Properties();
        try (var in = HelmChartIT.class.getResourceAsStream("/application.properties")) {
            properties.load(in);
        }
        return properties.getProperty(property);
    }

    private static int configuredPort(String property) throws IOException {
        String port = configured(property);
        return Integer.parseInt(port != null ? port : property.endsWith("ssl-port") ? "8443" : "8080");
    }

    @Test
    void lintsCleanWithTheSchedulerImageSet() throws IOException {
        // helm lint reads no --set values, so lint a copy whose values.yaml names an image
        java.nio.file.Path chart = temp.resolve("colocate");
        try (Stream<java.nio.file.Path> files = Files.walk(COLOCATE)) {
            for (java.nio.file.Path file : files.toList()) {
                java.nio.file.Path copy = chart.resolve(COLOCATE.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(copy);
                } else {
                    Files.copy(file, copy);
                }
            }
        }
        java.nio.file.Path values = chart.resolve("values.yaml");
        Files.writeString(values, Files.readString(values).replace("image: \"\"", "image: " + KUBE_SCHEDULER));

        LintResult lint = new Helm(chart).lint().strict().call();

        assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
    }

    @Test
    void refusesToInstallWithoutAKubeSchedulerImageAndSaysWhichValue() {
        assertThatThrownBy(() -> render(COLOCATE, Map.of()))
                .hasMessageContaining("app.scheduler.image is required");
        assertThat(render(COLOCATE, Map.of("app.scheduler.enabled", "false")))
                .noneMatch(o -> o.name().startsWith("colocate-scheduler"));
    }

    @Test
    void refusesAnUnknownWebhookFailurePolicyBeforeRenderingAnything() {
        assertThatThrownBy(() -> render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER,
                "app.webhook.enabled", "true", "app.webhook.failurePolicy", "Sometimes")))
                .hasMessageContaining("failurePolicy");
    }

    @Test
    void refusesAValuesFileWithAValueOfTheWrongTypeNamingIt() throws IOException {
        java.nio.file.Path values = temp.resolve("wrong-type.yaml");
        Files.writeString(values, "app:\n  scheduler:\n    image: " + KUBE_SCHEDULER + "\n    replicas: two\n");

        assertThatThrownBy(() -> render(COLOCATE, List.of(values), Map.of(), List.of()))
                .hasMessageContaining("replicas").hasMessageContaining("integer");
    }

    @Test
    void secondSchedulerCallsTheCopilotServiceForFilterPrioritizeAndBind() throws IOException {
        List<Rendered> objects = render(COLOCATE, SCHEDULER);

        ConfigMap configMap = get(objects, "ConfigMap", "colocate-scheduler-config").as(ConfigMap.class);
        Map<String, Object> config = Serialization.unmarshal(configMap.getData().get("config.yaml"), Map.class);
        assertThat(config).containsEntry("kind", "KubeSchedulerConfiguration");
        assertThat((List<Map<String, Object>>) config.get("profiles")).singleElement()
                .satisfies(p -> assertThat(p).containsEntry("schedulerName", PodOptIn.SCHEDULER_NAME));
        List<Map<String, Object>> extenders = (List<Map<String, Object>>) config.get("extenders");
        assertThat(extenders).hasSize(1);
        Map<String, Object> extender = extenders.get(0);
        assertThat(extender).containsEntry("nodeCacheCapable", true).containsEntry("ignorable", false);

        URI prefix = URI.create((String) extender.get("urlPrefix"));
        assertThat(prefix.getHost()).isEqualTo("colocate.colocate.svc");
        assertThat(prefix.getScheme()).isEqualTo("http");
        Container colocate = onlyContainer(get(objects, "Deployment", "colocate").as(Deployment.class));
        assertThat(colocate.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort())
                .isEqualTo(configuredPort("quarkus.http.port")));
        serviceLeadsToColocate(objects, prefix.getHost().split("\\.")[0], prefix.getPort(),
                configuredPort("quarkus.http.port"));
        for (String verb : List.of("filter", "prioritize", "bind")) {
            assertThat(prefix.getPath() + "/" + extender.get(verb + "Verb"))
                    .isEqualTo(pathOf(ExtenderResource.class, verb));
        }

        Deployment scheduler = get(objects, "Deployment", "colocate-scheduler").as(Deployment.class);
        Container kubeScheduler = onlyContainer(scheduler);
        assertThat(kubeScheduler.getImage()).isEqualTo(KUBE_SCHEDULER);
        assertThat(scheduler.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("colocate-scheduler");
        // the --config file is in a mounted volume of that ConfigMap
        String volume = scheduler.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getConfigMap() != null
                        && v.getConfigMap().getName().equals(configMap.getMetadata().getName()))
                .findFirst().orElseThrow().getName();
        String mountPath = kubeScheduler.getVolumeMounts().stream().filter(m -> m.getName().equals(volume))
                .findFirst().orElseThrow().getMountPath();
        assertThat(kubeScheduler.getCommand()).contains("--config=" + mountPath + "/config.yaml");
    }

    @Test
    void schedulerIsBoundToTheStockRolesAndTheCopilotMayBind() {
        List<Rendered> objects = render(COLOCATE, SCHEDULER);

        for (String name : List.of("colocate-scheduler-as-kube-scheduler", "colocate-scheduler-as-volume-scheduler")) {
            ClusterRoleBinding binding = get(objects, "ClusterRoleBinding", name).as(ClusterRoleBinding.class);
            assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
                assertThat(s.getName()).isEqualTo("colocate-scheduler");
                assertThat(s.getNamespace()).isEqualTo("colocate");
            });
        }
        RoleBinding authReader = get(objects, "RoleBinding", "colocate-scheduler-auth-reader").as(RoleBinding.class);
        assertThat(authReader.getMetadata().getNamespace()).isEqualTo("kube-system");
        assertThat(authReader.getRoleRef().getName()).isEqualTo("extension-apiserver-authentication-reader");

        ClusterRole colocate = get(objects, "ClusterRole", "colocate").as(ClusterRole.class);
        assertThat(colocate.getRules()).anySatisfy(rule -> {
            assertThat(rule.getResources()).contains("pods/binding");
            assertThat(rule.getVerbs()).contains("create");
        });
        assertThat(colocate.getRules()).anySatisfy(rule -> {
            assertThat(rule.getApiGroups()).contains("colocate.dev");
            assertThat(rule.getResources()).contains("genericnodes/status");
            assertThat(rule.getVerbs()).contains("patch", "update");
        });
    }

    /** Only the leading copilot is ready, so a rolling update would wait forever on a pod that cannot lead. */
    @Test
    void copilotElectsALeaderAndUpgradesByStoppingTheOldOneFirst() {
        Deployment deployment = get(render(COLOCATE, SCHEDULER), "Deployment", "colocate").as(Deployment.class);

        assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
        assertThat(envValue(onlyContainer(deployment), "COLOCATE_COPILOT_LEADER_ELECTION_ENABLED")).isEqualTo("true");
        assertThat(onlyContainer(deployment).getEnv()).anySatisfy(env -> {
            assertThat(env.getName()).isEqualTo("POD_NAMESPACE");
            assertThat(env.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace");
        });
    }

    @Test
    void installsBothCrdsWithTheirSchemasAndStatus() {
        // helm template leaves crds/ out; these are what helm install applies before the templates (helm-java's show
        // gives the files one after the other, with no document separator)
        List<CustomResourceDefinition> crds = Arrays.stream(new Helm(COLOCATE).show().crds().call()
                        .split("(?m)^(?=apiVersion:)"))
                .filter(d -> d.contains("kind:"))
                .map(d -> Serialization.unmarshal(d, CustomResourceDefinition.class)).toList();
        assertThat(crds).extracting(c -> c.getMetadata().getName())
                .containsExactlyInAnyOrder("slurmclusters.colocate.dev", "genericnodes.colocate.dev");
        assertThat(crds).allSatisfy(crd -> assertThat(crd.getSpec().getVersions()).singleElement().satisfies(v -> {
            assertThat(v.getName()).isEqualTo("v1alpha1");
            assertThat(v.getServed()).isTrue();
            assertThat(v.getSchema().getOpenAPIV3Schema().getProperties()).containsKeys("spec", "status");
            assertThat(v.getSubresources().getStatus()).isNotNull();
        }));
    }

    @Test
    void keysAreInSecretsNeverInConfigMaps() {
        // every ConfigMap the chart can make, next to the webhook's generated key and an external Slurm's settings
        List<Rendered> objects = render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER,
                "app.webhook.enabled", "true", "app.grafanaDashboard.enabled", "true",
                "app.externalSlurm.enabled", "true", "app.externalSlurm.restUrl", "http://slurmrestd.hpc:6820",
                "app.externalSlurm.jwtKeySecret.name", "slurm-jwt"));
        List<String> keys = objects.stream().filter(o -> o.kind().equals("Secret"))
                .flatMap(o -> o.as(Secret.class).getData().values().stream()).toList();
        assertThat(keys).as("the webhook's key pair").isNotEmpty();
        List<Rendered> configMaps = objects.stream().filter(o -> o.kind().equals("ConfigMap")).toList();
        assertThat(configMaps).hasSizeGreaterThanOrEqualTo(3).allSatisfy(c -> assertThat(c.yaml())
                .doesNotContain("PRIVATE KEY").doesNotContain(keys.toArray(String[]::new)));
        // the external Slurm's JWT key is named by its Secret, and read through the API, never copied
        assertThat(configMaps).anySatisfy(c -> assertThat(c.as(ConfigMap.class).getData())
                .containsValue("slurm-jwt"));
    }

    @Test
    void grafanaDashboardIsAConfigMapForGrafanasSidecarOnlyWhenAskedFor() throws IOException {
        assertThat(find(render(COLOCATE, SCHEDULER), "ConfigMap", "colocate-dashboard")).isEmpty();

        ConfigMap dashboard = get(render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER,
                "app.grafanaDashboard.enabled", "true")), "ConfigMap", "colocate-dashboard").as(ConfigMap.class);

        // the label Grafana's dashboard sidecar looks for
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
        // the file as it is: Grafana's {{node}} legends are not Helm's to expand
        assertThat(dashboard.getData().get("colocate.json"))
                .isEqualTo(Files.readString(DashboardMetricsTest.DASHBOARD).stripTrailing());
    }

    @Test
    void serviceMonitorScrapesColocatesServiceAlone() {
        List<Rendered> objects = render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER,
                "app.serviceMonitor.enabled", "true"));

        Map<String, Object> monitor = Serialization.unmarshal(get(objects, "ServiceMonitor", "colocate").yaml(),
                Map.class);
        @SuppressWarnings("unchecked")
        Map<String, String> selector = (Map<String, String>) ((Map<String, Object>) ((Map<String, Object>) monitor
                .get("spec")).get("selector")).get("matchLabels");
        // an empty selector would scrape every Service of the namespace
        assertThat(selector).isNotEmpty();
        assertThat(objects.stream().filter(o -> o.kind().equals("Service"))
                .filter(o -> o.object().getMetadata().getLabels() != null
                        && o.object().getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
                .map(Rendered::name)).containsExactly("colocate");
    }

    @Test
    void webhookIsOffByDefaultAndTheCopilotServesNoHttps() {
        List<Rendered> objects = render(COLOCATE, SCHEDULER);

        assertThat(find(objects, "MutatingWebhookConfiguration", "colocate-pod-opt-in")).isEmpty();
        assertThat(find(objects, "Secret", "colocate-webhook-tls")).isEmpty();
        assertThat(find(objects, "Service", "colocate-webhook")).isEmpty();
        Deployment deployment = get(objects, "Deployment", "colocate").as(Deployment.class);
        assertThat(Charts.profile(deployment)).isEqualTo("prod");
    }

    private static void leaves(String prefix, Object value, Map<String, Object> into) {
        if (value instanceof Map<?, ?> map && !map.isEmpty()) {
            map.forEach((k, v) -> leaves(prefix.isEmpty() ? k.toString() : prefix + "." + k, v, into));
        } else {
            into.put(prefix, value);
        }
    }

    @Test
    void theReadmeDescribesEveryValueWithItsDefault() throws IOException {
        Map<String, Object> values = new java.util.TreeMap<>();
        leaves("", Serialization.unmarshal(Files.readString(COLOCATE.resolve("values.yaml")), Map.class), values);
        // | `app.image` | `colocate:...` | what it does |
        Map<String, List<String>> rows = Files.readAllLines(COLOCATE.resolve("README.md")).stream()
                .filter(l -> l.startsWith("| `")).map(l -> List.of(l.substring(2, l.length() - 2).split(" \\| ")))
                .collect(java.util.stream.Collectors.toMap(r -> r.get(0).replace("`", ""), r -> r));

        assertThat(rows.keySet()).as("values described in helm/colocate/README.md (src/main/helm/README.md)")
                .containsExactlyInAnyOrderElementsOf(values.keySet());
        values.forEach((name, value) -> {
            String shown = value instanceof String text && text.isEmpty() ? "\"\"" : String.valueOf(value);
            assertThat(rows.get(name).get(1)).as("default of " + name).isEqualTo("`" + shown + "`");
            assertThat(rows.get(name).get(2)).as("description of " + name).isNotBlank();
        });
    }

    @Test
    void valuesOfferNothingTheChartOverrides() throws IOException {
        // the webhook's certificate paths follow app.webhook.enabled; as app.envs entries they would do nothing
        assertThat(Files.readString(COLOCATE.resolve("values.yaml"))).doesNotContain("QUARKUS_HTTP_SSL")
                .doesNotContain("QUARKUS_OPERATOR_SDK");
        // the served namespaces follow app.watchNamespaces: a value for the env var the operator SDK declares is refused
        assertThatThrownBy(() -> render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER,
                "app.envs.QUARKUS_OPERATOR_SDK_CONTROLLERS_SLURMCLUSTER_NAMESPACES", "team-a")))
                .hasMessageContaining("QUARKUS_OPERATOR_SDK_CONTROLLERS_SLURMCLUSTER_NAMESPACES");
    }

    @Test
    void webhookReachesTheCopilotOverTlsItTrusts() throws Exception {
        List<Rendered> objects = render(COLOCATE, Map.of("app.scheduler.image", KUBE_SCHEDULER, "app.webhook.enabled", "true"));

        MutatingWebhook webhook = get(objects, "MutatingWebhookConfiguration", "colocate-pod-opt-in").as(MutatingWebhookConfiguration.class).getWebhooks().get(0);
        assertThat(webhook.getNamespaceSelector().getMatchLabels()).containsEntry(Labels.ENABLED_NAMESPACE, "true");
        assertThat(webhook.getRules()).singleElement().satisfies(rule -> {
            assertThat(rule.getOperations()).containsExactly("CREATE");
            assertThat(rule.getResources()).containsExactly("pods");
        });
        var service = webhook.getClientConfig().getService();
        assertThat(service.getNamespace()).isEqualTo("colocate");
        assertThat(service.getPath()).isEqualTo(pathOf(WebhookResource.class, "pods"));
        serviceLeadsToColocate(objects, service.getName(), service.getPort(), configuredPort("quarkus.http.ssl-port"));

        Secret tls = get(objects, "Secret", "colocate-webhook-tls").as(Secret.class);
        assertThat(webhook.getClientConfig().getCaBundle()).isEqualTo(tls.getData().get("ca.crt"));
        CertificateFactory x509 = CertificateFactory.getInstance("X.509");
        X509Certificate ca = (X509Certificate) x509.generateCertificate(
                new ByteArrayInputStream(Base64.getDecoder().decode(tls.getData().get("ca.crt"))));
        X509Certificate serving = (X509Certificate) x509.generateCertificate(
                new ByteArrayInputStream(Base64.getDecoder().decode(tls.getData().get("tls.crt"))));
        serving.verify(ca.getPublicKey());
        assertThat(serving.getSubjectAlternativeNames().stream().map(san -> (Object) san.get(1)).toList())
                .contains((Object) (service.getName() + ".colocate.svc"));

        Deployment deployment = get(objects, "Deployment", "colocate").as(Deployment.class);
        Container colocate = onlyContainer(deployment);
        String volume = deployment.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getSecret() != null && v.getSecret().getSecretName().equals("colocate-webhook-tls"))
                .findFirst().orElseThrow().getName();
        String mount = colocate.getVolumeMounts().stream().filter(m -> m.getName().equals(volume)).findFirst()
                .orElseThrow().getMountPath();
        // the profile webhook reads the certificate from colocate.webhook.tls-dir (WebhookTlsIT runs it)
        assertThat(Charts.profile(deployment).split(",")).containsExactly("prod", "webhook");
        assertThat(mount).isEqualTo(configured("colocate.webhook.tls-dir"));
    }

    @Test
    void upgradeKeepsTheWebhookCertificateTheReleaseAlreadyHas() {
        Map<String, String> values = Map.of("app.scheduler.image", KUBE_SCHEDULER, "app.webhook.enabled", "true");
        Secret first = get(render(COLOCATE, values), "Secret", "colocate-webhook-tls").as(Secret.class);
        first.getMetadata().setNamespace("colocate");

        List<Rendered> upgrade = render(COLOCATE, values, List.of(first));

        assertThat(get(upgrade, "Secret", "colocate-webhook-tls").as(Secret.class).getData())
                .isEqualTo(first.getData());
        assertThat(get(upgrade, "MutatingWebhookConfiguration", "colocate-pod-opt-in").as(MutatingWebhookConfiguration.class).getWebhooks().get(0).getClientConfig().getCaBundle())
                .isEqualTo(first.getData().get("ca.crt"));
        assertThat(get(render(COLOCATE, values), "Secret", "colocate-webhook-tls").as(Secret.class).getData())
                .as("a fresh install makes its own").isNotEqualTo(first.getData());
    }
}
