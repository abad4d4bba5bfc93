package dev.colocate;

import static dev.colocate.testing.Charts.COLOCATE;
import static dev.colocate.testing.Charts.get;
import static dev.colocate.testing.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.testing.Charts.Rendered;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Whoever takes colocate over must not own every workload: Secrets and pods/exec are granted only in the namespaces
 * colocate serves, never cluster-wide (short of the explicit app.watchAllNamespaces), and no rule uses a wildcard.
 * Checked on the chart as rendered and on kubernetes/colocate.yaml.
 */
class RbacScopeIT {

    private static final Map<String, String> SCHEDULER = Map.of("app.scheduler.image", "kube-scheduler:v1.31.4");
    private static final String NAMESPACES_ENV = "QUARKUS_OPERATOR_SDK_CONTROLLERS_SLURMCLUSTER_NAMESPACES";
    /** What a cluster-wide grant must never include: a reader of Secrets or a shell in any pod owns the cluster. */
    private static final Set<String> NEVER_CLUSTER_WIDE = Set.of("secrets", "pods/exec", "pods/attach",
            "serviceaccounts/token");

    private static Map<String, String> values(String... pairs) {
        Map<String, String> values = new HashMap<>(SCHEDULER);
        for (int i = 0; i < pairs.length; i += 2) {
            values.put(pairs[i], pairs[i + 1]);
        }
        return values;
    }

    private static List<GenericKubernetesResource> plainManifests() throws IOException {
        List<GenericKubernetesResource> objects = new ArrayList<>();
        for (String document : Files.readString(Path.of("kubernetes", "colocate.yaml")).split("(?m)^---\\s*$")) {
            GenericKubernetesResource object = Serialization.unmarshal(document, GenericKubernetesResource.class);
            if (object != null) {
                objects.add(object);
            }
        }
        return objects;
    }

    private static List<PolicyRule> clusterWideRules(List<GenericKubernetesResource> objects) {
        return objects.stream().filter(o -> o.getKind().equals("ClusterRole"))
                .flatMap(o -> Serialization.unmarshal(Serialization.asYaml(o), ClusterRole.class).getRules().stream())
                .toList();
    }

    private static List<PolicyRule> allRules(List<GenericKubernetesResource> objects) {
        List<PolicyRule> rules = new ArrayList<>(clusterWideRules(objects));
        objects.stream().filter(o -> o.getKind().equals("Role"))
                .forEach(o -> rules.addAll(Serialization.unmarshal(Serialization.asYaml(o), Role.class).getRules()));
        return rules;
    }

    private static List<GenericKubernetesResource> objects(List<Rendered> rendered) {
        return rendered.stream().map(Rendered::object).toList();
    }

    private static void grantsNothingDangerousClusterWide(List<GenericKubernetesResource> objects, String what) {
        for (PolicyRule rule : clusterWideRules(objects)) {
            assertThat(rule.getResources()).as("%s: a ClusterRole grants %s", what, rule)
                    .doesNotContainAnyElementsOf(NEVER_CLUSTER_WIDE);
        }
        for (PolicyRule rule : allRules(objects)) {
            assertThat(rule.getApiGroups()).as("%s: wildcard in %s", what, rule).doesNotContain("*");
            assertThat(rule.getResources()).as("%s: wildcard in %s", what, rule).doesNotContain("*");
            assertThat(rule.getVerbs()).as("%s: wildcard in %s", what, rule).doesNotContain("*");
        }
    }

    /** The Role colocate holds in {@code namespace}, checked to be bound to its ServiceAccount. */
    private static Role servedRole(List<Rendered> rendered, String namespace) {
        Rendered role = rendered.stream().filter(o -> o.kind().equals("Role") && o.name().equals("colocate-served")
                && namespace.equals(o.object().getMetadata().getNamespace())).findFirst()
                .orElseThrow(() -> new AssertionError("no Role colocate-served in " + namespace));
        RoleBinding binding = rendered.stream().filter(o -> o.kind().equals("RoleBinding")
                && o.name().equals("colocate-served") && namespace.equals(o.object().getMetadata().getNamespace()))
                .findFirst().orElseThrow(() -> new AssertionError("no RoleBinding in " + namespace))
                .as(RoleBinding.class);
        assertThat(binding.getRoleRef().getName()).isEqualTo("colocate-served");
        assertThat(binding.getSubjects()).singleElement().satisfies(s -> {
            assertThat(s.getName()).isEqualTo("colocate");
            assertThat(s.getNamespace()).isEqualTo("colocate");
        });
        return role.as(Role.class);
    }

    private static String servedNamespaces(List<Rendered> rendered) {
        Deployment deployment = get(rendered, "Deployment", "colocate").as(Deployment.class);
        return deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
                .filter(e -> e.getName().equals(NAMESPACES_ENV)).map(EnvVar::getValue).findFirst().orElseThrow();
    }

    private static boolean grants(Role role, String resource, String verb) {
        return role.getRules().stream().anyMatch(r -> r.getResources().contains(resource) && r.getVerbs().contains(verb));
    }

    @Test
    void byDefaultSecretsAndExecAreGrantedInTheReleaseNamespaceOnly() {
        List<Rendered> rendered = render(COLOCATE, SCHEDULER);

        grantsNothingDangerousClusterWide(objects(rendered), "chart defaults");
        Role role = servedRole(rendered, "colocate");
        assertThat(grants(role, "secrets", "get")).isTrue();
        assertThat(grants(role, "pods/exec", "create")).isTrue();
        assertThat(grants(role, "slurmclusters", "watch")).isTrue();
        assertThat(servedNamespaces(rendered)).isEqualTo("colocate");
    }

    @Test
    void eachWatchedNamespaceGetsItsOwnRoleAndTheAppServesExactlyThose() {
        List<Rendered> rendered = render(COLOCATE, values("app.watchNamespaces[0]", "team-a", "app.watchNamespaces[1]", "team-b"));

        grantsNothingDangerousClusterWide(objects(rendered), "app.watchNamespaces=[team-a, team-b]");
        assertThat(grants(servedRole(rendered, "team-a"), "secrets", "create")).isTrue();
        assertThat(grants(servedRole(rendered, "team-b"), "statefulsets", "delete")).isTrue();
        assertThat(rendered).noneMatch(o -> o.kind().equals("Role") && o.name().equals("colocate-served")
                && "colocate".equals(o.object().getMetadata().getNamespace()));
        assertThat(servedNamespaces(rendered)).isEqualTo("team-a,team-b");
        // the Leases stay in the release's namespace, where colocate runs
        Role leases = get(rendered, "Role", "colocate-leases").as(Role.class);
        assertThat(leases.getMetadata().getNamespace()).isEqualTo("colocate");
        assertThat(grants(leases, "leases", "update")).isTrue();
        assertThat(grants(leases, "leases", "patch")).as("fabric8's LeaderElector renews with a PATCH").isTrue();
    }

    @Test
    void thePlainManifestsGrantNothingDangerousClusterWide() throws IOException {
        List<GenericKubernetesResource> objects = plainManifests();

        grantsNothingDangerousClusterWide(objects, "kubernetes/colocate.yaml");
        assertThat(objects).anyMatch(o -> o.getKind().equals("Role")
                && o.getMetadata().getName().equals("colocate-served"));
    }

    @Test
    void onlyTheExplicitAllNamespacesChoiceGrantsSecretsClusterWide() {
        List<Rendered> rendered = render(COLOCATE, values("app.watchAllNamespaces", "true"));

        ClusterRole all = get(rendered, "ClusterRole", "colocate-all-namespaces").as(ClusterRole.class);
        assertThat(all.getRules()).anyMatch(r -> r.getResources().contains("secrets"));
        assertThat(all.getMetadata().getAnnotations()).containsKey("colocate.dev/warning");
        assertThat(servedNamespaces(rendered)).isEqualTo("JOSDK_ALL_NAMESPACES");
        // no other ClusterRole picks up what this one grants
        List<GenericKubernetesResource> others = objects(rendered).stream()
                .filter(o -> !o.getMetadata().getName().equals("colocate-all-namespaces")).toList();
        grantsNothingDangerousClusterWide(others, "app.watchAllNamespaces=true, apart from its ClusterRole");
    }
}
