package dev.colocate;

import static dev.colocate.testing.Charts.COLOCATE;
import static dev.colocate.testing.Charts.SLURM_CLUSTER;
import static dev.colocate.testing.Charts.render;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.OperatorDefaults;
import dev.colocate.operator.model.SlurmDeployments;
import dev.colocate.operator.model.SlurmFiles;
import dev.colocate.operator.model.SlurmStatefulSets;
import dev.colocate.testing.Charts.Rendered;
import dev.colocate.testing.RestrictedProfile;
import dev.colocate.testing.RestrictedProfile.Violation;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every pod both charts make, directly (helm/colocate) or through the operator (the SlurmCluster of
 * helm/slurm-cluster), checked against Pod Security's restricted profile, as a namespace labelled
 * {@code pod-security.kubernetes.io/enforce: restricted} (or OpenShift's restricted-v2) would.
 */
class PodSecurityIT {

    private static final Map<String, String> SCHEDULER = Map.of("app.scheduler.image", "kube-scheduler:v1.31.4");
    private static final Path ACK_VALUES = Path.of("src", "test", "resources", "ack-slurm-cluster-values.yaml");

    /** The pod specs of what Helm rendered, by kind/name. */
    private static Map<String, PodSpec> pods(List<Rendered> objects) {
        Map<String, PodSpec> pods = new LinkedHashMap<>();
        for (Rendered o : objects) {
            PodSpec spec = switch (o.kind()) {
                case "Deployment" -> o.as(Deployment.class).getSpec().getTemplate().getSpec();
                case "StatefulSet" -> o.as(StatefulSet.class).getSpec().getTemplate().getSpec();
                case "DaemonSet" -> o.as(DaemonSet.class).getSpec().getTemplate().getSpec();
                case "Job" -> o.as(Job.class).getSpec().getTemplate().getSpec();
                case "Pod" -> o.as(Pod.class).getSpec();
                default -> null;
            };
            if (spec != null) {
                pods.put(o.kind() + "/" + o.name(), spec);
            }
        }
        return pods;
    }

    private static Map<String, List<Violation>> violations(Map<String, PodSpec> pods) {
        Map<String, List<Violation>> out = new LinkedHashMap<>();
        pods.forEach((name, spec) -> {
            List<Violation> v = RestrictedProfile.violations(spec);
            if (!v.isEmpty()) {
                out.put(name, v);
            }
        });
        return out;
    }

    private static Map<String, String> with(Map<String, String> base, Map<String, String> more) {
        Map<String, String> values = new LinkedHashMap<>(base);
        values.putAll(more);
        return values;
    }

    @Test
    void everyPodOfTheColocateChartMeetsTheRestrictedProfile() {
        List<Map<String, String>> variants = List.of(SCHEDULER,
                with(SCHEDULER, Map.of("app.webhook.enabled", "true")),
                with(SCHEDULER, ChartDriftIT.OPENSHIFT),
                with(SCHEDULER, Map.of("app.externalSlurm.enabled", "true", "app.externalSlurm.restUrl",
                        "http://s:6820", "app.externalSlurm.jwtKeySecret.name", "k")));
        for (Map<String, String> values : variants) {
            Map<String, PodSpec> pods = pods(render(COLOCATE, values));

            assertThat(pods).as("colocate and colocate-scheduler").hasSize(2);
            assertThat(violations(pods)).as("restricted profile, values %s", values).isEmpty();
        }
    }

    @Test
    void onOpenShiftNoPodFixesItsUserOrGroup() {
        // restricted-v2 assigns both from the namespace's range and refuses a pod that names others
        pods(render(COLOCATE, with(SCHEDULER, ChartDriftIT.OPENSHIFT)))
                .forEach((name, spec) -> {
                    assertThat(spec.getSecurityContext().getRunAsUser()).as(name).isNull();
                    assertThat(spec.getSecurityContext().getFsGroup()).as(name).isNull();
                    spec.getContainers().forEach(c -> assertThat(c.getSecurityContext().getRunAsUser()).as(name)
                            .isNull());
                });
    }

    @Test
    void theOperatorsSlurmPodsMeetBaselineAndSayWhatKeepsThemFromRestricted() {
        for (List<Path> valuesFiles : List.of(List.<Path>of(), List.of(ACK_VALUES))) {
            SlurmCluster cluster = render(SLURM_CLUSTER, valuesFiles, Map.of(), List.of()).stream()
                    .filter(o -> o.kind().equals("SlurmCluster")).findFirst().orElseThrow().as(SlurmCluster.class);
            Map<String, PodSpec> pods = operatorPods(cluster);
            assertThat(pods).isNotEmpty();

            Map<String, List<Violation>> found = violations(pods);
            found.forEach((name, list) -> assertThat(list).as("baseline checks of " + name)
                    .noneMatch(Violation::baseline));
            // what restricted still refuses, and README's "Pod Security" explains: root entrypoints
            found.forEach((name, list) -> assertThat(list).as(name).allMatch(v -> v.what().contains("runAsNonRoot")
                    || v.what().contains("capabilities") || v.what().contains("allowPrivilegeEscalation")
                    || v.what().contains("readOnlyRootFilesystem")));
            System.out.printf("Slurm pods of %s, beyond restricted:%n", valuesFiles.isEmpty() ? "the defaults"
                    : valuesFiles.get(0).getFileName());
            found.forEach((name, list) -> System.out.printf("  %s: %s%n", name, list));
        }
    }

    /** What the operator makes of {@code cluster}: its StatefulSets' and Deployments' pod specs. */
    private static Map<String, PodSpec> operatorPods(SlurmCluster cluster) {
        OperatorDefaults defaults = new OperatorDefaults("slurm:22.05", "cluster.local");
        if (cluster.getMetadata().getNamespace() == null) {
            cluster.getMetadata().setNamespace("slurm");
        }
        SlurmFiles.Rendered files = SlurmFiles.render(cluster, "-- job_submit.lua\n");
        Map<String, PodSpec> pods = new LinkedHashMap<>();
        StatefulSet controller = SlurmStatefulSets.controller(cluster, files, defaults);
        pods.put("slurmctld", controller.getSpec().getTemplate().getSpec());
        cluster.getSpec().getWorkerGroupSpecs().forEach(g -> pods.put("slurmd " + g.getGroupName(),
                SlurmStatefulSets.workers(cluster, g, files, defaults).getSpec().getTemplate().getSpec()));
        pods.put("slurmrestd", SlurmDeployments.restApi(cluster, files, defaults).getSpec().getTemplate().getSpec());
        if (cluster.getSpec().getAccounting() != null) {
            pods.put("slurmdbd", SlurmDeployments.accounting(cluster, files, defaults).getSpec().getTemplate()
                    .getSpec());
        }
        return pods;
    }
}
