package dev.colocate.testing;

import static org.awaitility.Awaitility.await;

import dev.colocate.api.GenericNode;
import dev.colocate.api.SlurmCluster;
import dev.colocate.config.OperatorConfig;
import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real API server of {@link KubeHarness} for a {@code @QuarkusTest}, in place of fabric8's mock: colocate in the
 * test's JVM authenticates as the ServiceAccount of helm/colocate, with exactly the RBAC the chart renders, never as
 * admin. The test's {@link KubeAdmin} field gets an admin client to set the scene with.
 *
 * <p>Init args: {@code served}, the namespaces whose SlurmClusters colocate serves (comma-separated; the chart's
 * app.watchNamespaces, each made here), or {@code all} for app.watchAllNamespaces. Without it, the release's.
 *
 * <p>The control plane is one per JVM, shared by every class that uses it: what a class leaves (Nodes, GenericNodes,
 * SlurmClusters, pods of the namespaces it used, Leases) is removed before the next starts and after it stops. The
 * namespaces stay: one being deleted refuses new pods for a while, and the next class may use it.
 */
public class RealKubernetes implements QuarkusTestResourceLifecycleManager {

    /** Namespaces whose pods tests make; their pods go with each class. */
    static final List<String> POD_NAMESPACES = List.of("default", "kube-system");

    private List<String> served = List.of();
    private boolean all;
    private KubernetesClient admin;
    private List<Rendered> chart;

    @Override
    public void init(Map<String, String> args) {
        String value = args.getOrDefault("served", "");
        all = "all".equals(value);
        served = all || value.isBlank() ? List.of() : Arrays.stream(value.split(",")).map(String::strip).toList();
    }

    @Override
    public Map<String, String> start() {
        KubeHarness kube = KubeHarness.ensure();
        admin = kube.admin();
        ChartInstall.crds(admin);
        Map<String, String> values = new HashMap<>(Map.of("app.scheduler.image", "kube-scheduler:v1.34.0"));
        if (all) {
            values.put("app.watchAllNamespaces", "true");
        }
        for (int i = 0; i < served.size(); i++) {
            values.put("app.watchNamespaces[" + i + "]", served.get(i));
        }
        chart = Charts.render(Charts.COLOCATE, values);
        List<String> namespaces = new ArrayList<>(served);
        namespaces.add(ChartInstall.RELEASE_NAMESPACE);
        namespaces.forEach(ns -> KubeHarness.namespace(admin, ns, Map.of()));
        clean();
        ChartInstall.identity(admin, chart);
        before(admin);
        Map<String, String> config = new HashMap<>();
        config.put("quarkus.kubernetes-client.api-server-url", kube.apiUrl());
        config.put("quarkus.kubernetes-client.ca-cert-file", kube.caFile().toString());
        // the ServiceAccount's token, as its pod would read it: nothing of the admin's reaches colocate
        config.put("quarkus.kubernetes-client.token", kube.token(ChartInstall.RELEASE_NAMESPACE, "colocate",
                Duration.ofHours(2)));
        // as the chart's Deployment sets them: the Leases go to the release's namespace, SlurmClusters are served
        // where the Roles grant them
        config.put("POD_NAMESPACE", ChartInstall.RELEASE_NAMESPACE);
        config.put("quarkus.operator-sdk.controllers.slurmcluster.namespaces", all ? OperatorConfig.ALL_NAMESPACES
                : String.join(",", served.isEmpty() ? List.of(ChartInstall.RELEASE_NAMESPACE) : served));
        return config;
    }

    /** What a subclass puts on the API server before colocate starts, as the admin. */
    protected void before(KubernetesClient admin) {
    }

    @Override
    public void inject(TestInjector testInjector) {
        testInjector.injectIntoFields(admin,
                new TestInjector.AnnotatedAndMatchesType(KubeAdmin.class, KubernetesClient.class));
    }

    @Override
    public void stop() {
        if (admin == null) {
            return;
        }
        try {
            clean();
            ChartInstall.removeIdentity(admin, chart);
        } finally {
            admin.close();
        }
    }

    /** Removes what a test class may have left on the shared control plane. */
    private void clean() {
        admin.resources(SlurmCluster.class).inAnyNamespace().delete();
        admin.resources(GenericNode.class).delete();
        admin.nodes().delete();
        for (String ns : POD_NAMESPACES) {
            admin.pods().inNamespace(ns).withGracePeriod(0).delete();
        }
        served.forEach(ns -> admin.pods().inNamespace(ns).withGracePeriod(0).delete());
        admin.leases().inNamespace(ChartInstall.RELEASE_NAMESPACE).delete();
        await().atMost(Duration.ofSeconds(60)).until(() -> admin.nodes().list().getItems().isEmpty());
    }
}
