package dev.colocate.testing;

import static org.awaitility.Awaitility.await;

import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parts of helm/colocate put on a real API server ({@link KubeHarness}) as {@code helm install} would put them, for
 * tests that run colocate as a process beside it: the chart's CRDs, its ServiceAccount and RBAC, and the environment
 * its Deployment gives the container.
 */
public final class ChartInstall {

    /** The release namespace of {@link Charts#render}. */
    public static final String RELEASE_NAMESPACE = "colocate";
    static final Path CRDS = Charts.COLOCATE.resolve("crds");
    static final Set<String> IDENTITY = Set.of("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role",
            "RoleBinding", "ConfigMap");
    private static final Pattern ANNOTATION = Pattern.compile("metadata\\.annotations\\['([^']+)'\\]");

    private ChartInstall() {
    }

    /** Applies the chart's CRDs (server-side, as helm does on install) and waits until they are established. */
    public static void crds(KubernetesClient admin) {
        for (String file : List.of("genericnodes.colocate.dev-v1.yml", "slurmclusters.colocate.dev-v1.yml")) {
            try (InputStream in = Files.newInputStream(CRDS.resolve(file))) {
                CustomResourceDefinition crd = admin.getKubernetesSerialization().unmarshal(in,
                        CustomResourceDefinition.class);
                admin.apiextensions().v1().customResourceDefinitions().resource(crd).forceConflicts()
                        .serverSideApply();
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    var status = admin.apiextensions().v1().customResourceDefinitions()
                            .withName(crd.getMetadata().getName()).get().getStatus();
                    return status != null && status.getConditions() != null && status.getConditions().stream()
                            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
                });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Applies what gives colocate its identity and rights, exactly as rendered: the ServiceAccount, every ClusterRole,
     * Role and binding, and the ConfigMaps its Deployment reads. Namespaced objects without a namespace go to the
     * release's.
     */
    public static void identity(KubernetesClient admin, List<Rendered> objects) {
        identityObjects(objects).forEach(o -> admin.resource(o).forceConflicts().serverSideApply());
    }

    /** Deletes what {@link #identity} applied. */
    public static void removeIdentity(KubernetesClient admin, List<Rendered> objects) {
        identityObjects(objects).forEach(o -> admin.resource(o).delete());
    }

    private static List<GenericKubernetesResource> identityObjects(List<Rendered> objects) {
        return objects.stream().filter(r -> IDENTITY.contains(r.kind())).map(r -> {
            GenericKubernetesResource object = r.object();
            if (!r.kind().startsWith("Cluster") && object.getMetadata().getNamespace() == null) {
                object.getMetadata().setNamespace(RELEASE_NAMESPACE);
            }
            return object;
        }).toList();
    }

    /**
     * The environment the chart's Deployment {@code name} gives its first container, resolved as a kubelet would:
     * plain values, the downward API's namespace and annotations, and envFrom ConfigMaps among {@code objects}.
     */
    public static Map<String, String> env(List<Rendered> objects, String name) {
        Deployment deployment = Charts.get(objects, "Deployment", name).as(Deployment.class);
        Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, String> env = new TreeMap<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            ConfigMap map = Charts.get(objects, "ConfigMap", from.getConfigMapRef().getName()).as(ConfigMap.class);
            env.putAll(map.getData());
        }
        for (EnvVar var : container.getEnv()) {
            if (var.getValueFrom() == null) {
                env.put(var.getName(), var.getValue());
                continue;
            }
            String path = var.getValueFrom().getFieldRef().getFieldPath();
            Matcher annotation = ANNOTATION.matcher(path);
            if ("metadata.namespace".equals(path)) {
                env.put(var.getName(), RELEASE_NAMESPACE);
            } else if (annotation.matches()) {
                env.put(var.getName(), deployment.getSpec().getTemplate().getMetadata().getAnnotations()
                        .get(annotation.group(1)));
            } else {
                throw new IllegalArgumentException("no stand-in for the downward API's " + path);
            }
        }
        return env;
    }
}
