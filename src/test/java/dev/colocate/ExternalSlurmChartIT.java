package dev.colocate;

import static dev.colocate.testing.Charts.COLOCATE;
import static dev.colocate.testing.Charts.get;
import static dev.colocate.testing.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** helm/colocate's app.externalSlurm, rendered by real Helm: what colocate's container is told, and may read. */
class ExternalSlurmChartIT {

    private static final Map<String, String> EXTERNAL = Map.of(
            "app.scheduler.image", "kube-scheduler:v1.31.4",
            "app.externalSlurm.enabled", "true",
            "app.externalSlurm.restUrl", "http://slurm-head.example.org:6820",
            "app.externalSlurm.jwtKeySecret.name", "slurm-jwt");

    /** The environment colocate's container starts with: its plain env vars, then those of its envFrom ConfigMaps. */
    private static Map<String, String> environment(List<Rendered> objects) {
        Deployment deployment = get(objects, "Deployment", "colocate").as(Deployment.class);
        Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        Map<String, String> env = new HashMap<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            assertThat(from.getConfigMapRef()).as("envFrom reads ConfigMaps only, no Secret").isNotNull();
            env.putAll(get(objects, "ConfigMap", from.getConfigMapRef().getName()).as(ConfigMap.class).getData());
        }
        for (EnvVar var : container.getEnv()) {
            if (var.getValue() != null) {
                env.put(var.getName(), var.getValue());
            }
        }
        return env;
    }

    private static Map<String, String> with(String key, String value) {
        Map<String, String> values = new HashMap<>(EXTERNAL);
        values.put(key, value);
        return values;
    }

    @Test
    void byDefaultColocateServesOnlyTheSlurmOfSlurmClusters() {
        List<Rendered> objects = render(COLOCATE, Map.of("app.scheduler.image", "kube-scheduler:v1.31.4"));

        // without it the copilot would ask slurmrestd on 127.0.0.1 and never be ready
        assertThat(environment(objects)).containsEntry("COLOCATE_SLURM_ENABLED", "false")
                .doesNotContainKey("COLOCATE_SLURM_REST_URL");
        assertThat(objects).noneMatch(o -> o.name().equals("colocate-external-slurm-key"));
    }

    @Test
    void anExternalSlurmIsReachedByItsUrlWithTheKeyOfOneSecretColocateMayRead() {
        List<Rendered> objects = render(COLOCATE, EXTERNAL);

        assertThat(environment(objects))
                .containsEntry("COLOCATE_SLURM_ENABLED", "true")
                .containsEntry("COLOCATE_SLURM_REST_URL", "http://slurm-head.example.org:6820")
                .containsEntry("COLOCATE_SLURM_JWT_KEY_SECRET", "slurm-jwt")
                .containsEntry("COLOCATE_SLURM_JWT_KEY_SECRET_KEY", "jwt_hs256.key")
                .containsEntry("COLOCATE_SLURM_JWT_USER", "slurm")
                .doesNotContainKey("COLOCATE_SLURM_API_VERSION");
        Role role = get(objects, "Role", "colocate-external-slurm-key").as(Role.class);
        assertThat(role.getRules()).singleElement().satisfies((PolicyRule rule) -> {
            assertThat(rule.getResources()).containsExactly("secrets");
            assertThat(rule.getResourceNames()).containsExactly("slurm-jwt");
            assertThat(rule.getVerbs()).containsExactly("get");
        });
        get(objects, "RoleBinding", "colocate-external-slurm-key");
    }

    @Test
    void theExampleValuesServeAnExternalSlurm() {
        List<Rendered> objects = render(COLOCATE, List.of(Path.of("kubernetes", "examples",
                "external-slurm-values.yaml")), Map.of("app.scheduler.image", "kube-scheduler:v1.31.4"), List.of());

        assertThat(environment(objects)).containsEntry("COLOCATE_SLURM_ENABLED", "true")
                .containsKeys("COLOCATE_SLURM_REST_URL", "COLOCATE_SLURM_JWT_KEY_SECRET");
    }

    @Test
    void aChangedValueRollsColocatesPod() {
        Deployment before = get(render(COLOCATE, EXTERNAL), "Deployment", "colocate").as(Deployment.class);
        Deployment after = get(render(COLOCATE, with("app.externalSlurm.apiVersion", "v0.0.41")), "Deployment",
                "colocate").as(Deployment.class);

        // env from a ConfigMap is read at start only: the pod template must change with it, or nothing restarts
        assertThat(after.getSpec().getTemplate()).isNotEqualTo(before.getSpec().getTemplate());
        assertThat(environment(render(COLOCATE, with("app.externalSlurm.apiVersion", "v0.0.41"))))
                .containsEntry("COLOCATE_SLURM_API_VERSION", "v0.0.41");
    }

    @Test
    void anExternalSlurmWithoutItsUrlOrKeyIsRefusedNamingTheValue() {
        Map<String, String> noUrl = new HashMap<>(EXTERNAL);
        noUrl.remove("app.externalSlurm.restUrl");
        Map<String, String> noKey = new HashMap<>(EXTERNAL);
        noKey.remove("app.externalSlurm.jwtKeySecret.name");

        assertThatThrownBy(() -> render(COLOCATE, noUrl)).hasMessageContaining("app.externalSlurm.restUrl is required");
        assertThatThrownBy(() -> render(COLOCATE, noKey))
                .hasMessageContaining("app.externalSlurm.jwtKeySecret.name is required");
        assertThatThrownBy(() -> render(COLOCATE, with("app.externalSlurm.apiVersion", "0.0.41")))
                .hasMessageContaining("apiVersion");
    }
}
