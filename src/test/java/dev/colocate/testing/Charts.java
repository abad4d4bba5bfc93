package dev.colocate.testing;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Renders a chart with real Helm (helm-java) and hands back what `helm template` printed, object by object. */
public final class Charts {

    public static final Path COLOCATE = Path.of("helm", "colocate");
    public static final Path SLURM_CLUSTER = Path.of("helm", "slurm-cluster");
    private static final Pattern SOURCE = Pattern.compile("(?m)^# Source: (\\S+)$");

    private Charts() {
    }

    /** One rendered object and the template it came from (for example "colocate/templates/scheduler.yaml"). */
    public record Rendered(String source, String yaml, GenericKubernetesResource object) {

        public String kind() {
            return object.getKind();
        }

        public String name() {
            return object.getMetadata().getName();
        }

        /** The object as the typed model, for example {@code as(Deployment.class)}. */
        public <T> T as(Class<T> type) {
            return Serialization.unmarshal(yaml, type);
        }
    }

    /** The rendered objects of {@code chart} as release "colocate" in namespace "colocate", on an empty cluster. */
    public static List<Rendered> render(Path chart, Map<String, String> values) {
        return render(chart, values, List.of());
    }

    /**
     * The rendered objects of {@code chart} as release "colocate" in namespace "colocate", where the chart's
     * lookup() finds {@code existing} (namespaced core/v1 objects), as on an upgrade.
     */
    public static List<Rendered> render(Path chart, Map<String, String> values, List<HasMetadata> existing) {
        return render(chart, List.of(), values, existing);
    }

    /**
     * The rendered objects of {@code chart} as release "colocate" in namespace "colocate", with {@code valuesFiles}
     * (as {@code -f}, in order) and then {@code values} (as {@code --set}), where lookup() finds {@code existing}.
     */
    public static List<Rendered> render(Path chart, List<Path> valuesFiles, Map<String, String> values,
            List<HasMetadata> existing) {
        TemplateCommand template = new Helm(chart).template().withName("colocate").withNamespace("colocate");
        valuesFiles.forEach(template::withValuesFile);
        values.forEach(template::set);
        String output;
        try (LookupCluster cluster = new LookupCluster(existing)) {
            output = template.call();
        }
        List<Rendered> objects = new ArrayList<>();
        for (String document : output.split("(?m)^---\\s*$")) {
            Matcher source = SOURCE.matcher(document);
            GenericKubernetesResource object = Serialization.unmarshal(document, GenericKubernetesResource.class);
            if (object != null && source.find()) {
                objects.add(new Rendered(source.group(1), document.substring(source.end()).strip() + "\n", object));
            }
        }
        return objects;
    }

    /**
     * helm-java's template, unlike the helm CLI's, sends lookup() to a cluster (the CLI returns nothing offline). This
     * mock API answers it, through the kubeconfig file Failsafe names in KUBECONFIG, for as long as one render runs.
     */
    private static final class LookupCluster implements AutoCloseable {

        private final KubernetesMockServer server = new KubernetesMockServer(false);
        private final Path kubeconfig;

        LookupCluster(List<HasMetadata> existing) {
            String file = System.getenv("KUBECONFIG");
            if (file == null) {
                throw new IllegalStateException("KUBECONFIG is unset: run chart tests through Failsafe (mvn verify)");
            }
            kubeconfig = Path.of(file);
            server.init();
            // lookup() first discovers the core group's resources, with client-go's default timeout in the query
            server.expect().get().withPath("/api/v1?timeout=32s").andReturn(200, new APIResourceListBuilder()
                    .withGroupVersion("v1")
                    .addNewResource().withName("secrets").withKind("Secret").withNamespaced(true)
                    .withVerbs("get", "list").endResource()
                    .addNewResource().withName("configmaps").withKind("ConfigMap").withNamespaced(true)
                    .withVerbs("get", "list").endResource()
                    .build()).always();
            for (HasMetadata object : existing) {
                server.expect().get().withPath("/api/v1/namespaces/" + object.getMetadata().getNamespace() + "/"
                        + HasMetadata.getPlural(object.getClass()) + "/" + object.getMetadata().getName())
                        .andReturn(200, object).always();
            }
            String url = server.url("/").replaceAll("/$", "");
            try {
                Files.createDirectories(kubeconfig.getParent());
                Files.writeString(kubeconfig, """
                        apiVersion: v1
                        kind: Config
                        clusters: [{name: lookup, cluster: {server: "%s"}}]
                        users: [{name: lookup, user: {token: lookup}}]
                        contexts: [{name: lookup, context: {cluster: lookup, user: lookup, namespace: colocate}}]
                        current-context: lookup
                        """.formatted(url));
            } catch (IOException e) {
                server.destroy();
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void close() {
            try {
                Files.deleteIfExists(kubeconfig);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                server.destroy();
            }
        }
    }

    /**
     * The Quarkus profile colocate's pod runs: QUARKUS_PROFILE, which the downward API reads from the pod annotation
     * the chart sets.
     */
    public static String profile(io.fabric8.kubernetes.api.model.apps.Deployment deployment) {
        String path = deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals("QUARKUS_PROFILE")).findFirst().orElseThrow()
                .getValueFrom().getFieldRef().getFieldPath();
        String annotation = path.replaceAll("^metadata\\.annotations\\['(.*)'\\]$", "$1");
        return deployment.getSpec().getTemplate().getMetadata().getAnnotations().get(annotation);
    }

    public static Optional<Rendered> find(List<Rendered> objects, String kind, String name) {
        return objects.stream().filter(o -> o.kind().equals(kind) && o.name().equals(name)).findFirst();
    }

    public static Rendered get(List<Rendered> objects, String kind, String name) {
        return find(objects, kind, name)
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " rendered, only "
                        + objects.stream().map(o -> o.kind() + "/" + o.name()).toList()));
    }
}
