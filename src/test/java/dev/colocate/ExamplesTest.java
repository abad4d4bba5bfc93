package dev.colocate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.OperatorDefaults;
import dev.colocate.operator.model.SlurmFiles;
import dev.colocate.operator.model.SlurmStatefulSets;
import dev.colocate.operator.model.SpecProblems;
import dev.colocate.scheduler.PodOptIn;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The manifests in kubernetes/examples say what colocate does with them. */
class ExamplesTest {

    static final Path EXAMPLES = Path.of("kubernetes", "examples");

    @Test
    void theMinimalSlurmClusterIsOneTheOperatorAccepts() throws IOException {
        SlurmCluster cluster = Serialization.unmarshal(Files.readString(EXAMPLES.resolve("slurmcluster-minimal.yaml")),
                SlurmCluster.class);

        List<String> problems = new ArrayList<>(SpecProblems.of(cluster, new OperatorDefaults("slurm:22.05",
                "cluster.local")));
        problems.addAll(SlurmFiles.render(cluster, "-- job_submit.lua\n").problems());
        assertThat(problems).isEmpty();
        assertThat(cluster.getSpec().getWorkerGroupSpecs()).singleElement()
                .satisfies(group -> assertThat(group.getReplicas()).isEqualTo(2));
    }

    @Test
    void theGpuGroupsNodesOfferTheirGpusToSlurmJobs() throws IOException {
        SlurmCluster cluster = Serialization.unmarshal(Files.readString(EXAMPLES.resolve("slurmcluster-gpu.yaml")),
                SlurmCluster.class);
        cluster.getMetadata().setNamespace("slurm");

        SlurmFiles.Rendered files = SlurmFiles.render(cluster, "-- job_submit.lua\n");
        assertThat(SpecProblems.of(cluster, new OperatorDefaults("slurm:22.05", "cluster.local"))).isEmpty();
        assertThat(files.problems()).isEmpty();
        assertThat(files.files().get("slurm.conf"))
                .contains("GresTypes=k8scpu,k8smemory,gpu\n")
                .contains("NodeName=gpu-demo-worker-gpu-[0-1] CPUs=16 RealMemory=65536 "
                        + "Gres=k8scpu:16,k8smemory:65536,gpu:2 ")
                .contains("NodeName=gpu-demo-worker-cpu-[0-1] CPUs=4 RealMemory=8192 Gres=k8scpu:4,k8smemory:8192 ");
        // the GPU group's slurmd names its two GPUs from the pod's devices; the CPU group's has none to name
        OperatorDefaults defaults = new OperatorDefaults("slurm:22.05", "cluster.local");
        for (var group : cluster.getSpec().getWorkerGroupSpecs()) {
            var env = SlurmStatefulSets.workers(cluster, group, files, defaults).getSpec().getTemplate().getSpec()
                    .getContainers().get(0).getEnv();
            assertThat(env.stream().filter(e -> e.getName().equals("SLURMD_GPUS")).map(e -> e.getValue()))
                    .as(group.getGroupName()).isEqualTo(group.getGroupName().equals("gpu") ? List.of("2") : List.of());
        }
        assertThat(files.files().get("gres.conf")).doesNotContain("Name=gpu");
    }

    @Test
    void nginxOptsIntoColocateAsTheWebhookWould() throws IOException {
        Deployment nginx = Serialization.unmarshal(Files.readString(EXAMPLES.resolve("nginx-deployment-basic.yaml")),
                Deployment.class);

        PodSpec spec = nginx.getSpec().getTemplate().getSpec();
        assertThat(spec.getSchedulerName()).isEqualTo(PodOptIn.SCHEDULER_NAME);
        assertThat(spec.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getKey()).isEqualTo(PodOptIn.TAINT_KEY);
            assertThat(t.getValue()).isEqualTo(PodOptIn.TAINT_VALUE);
            assertThat(t.getEffect()).isEqualTo("NoSchedule");
        });
        // requests are what colocate holds in Slurm for each replica
        assertThat(spec.getContainers()).allSatisfy(c -> assertThat(c.getResources().getRequests())
                .containsKeys("cpu", "memory"));
    }
}
