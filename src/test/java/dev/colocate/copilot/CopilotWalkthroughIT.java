package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.colocate.api.GenericNode;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.testing.Crds;
import dev.colocate.testing.SlurmHarness;
import dev.colocate.testing.SlurmHarnessResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * DESIGN §1.3-1.4 in GRES mode on real Slurm 22.05 (8 CPUs, 32000 MB, job_submit.lua) and the mock API server: the
 * GenericNode tells the truth, and Slurm can use only what Kubernetes leaves, by the k8scpu/k8smemory counts. The
 * same walkthrough in hold mode, the default, is {@link HoldModeScenarios}.
 */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = {@ResourceArg(name = "jobSubmitLua", value = "true"), @ResourceArg(name = "shareMode", value = "gres")})
class CopilotWalkthroughIT {

    static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmControl slurm;

    private final List<Long> jobs = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        jobs.forEach(id -> slurm.cancel(id).await().atMost(WAIT));
        client.pods().inAnyNamespace().delete();
        client.nodes().delete();
    }

    private long sbatch(SlurmHarness harness) {
        String out = harness.run("sbatch", "--parsable", "-o", "/dev/null", "--cpus-per-task=3", "--mem=4000",
                "--wrap", "sleep 300");
        long id = Long.parseLong(out.strip().split(";")[0]);
        jobs.add(id);
        return id;
    }

    private SlurmJob job(long id) {
        return slurm.jobs().await().atMost(WAIT).stream().filter(j -> j.id() == id).findFirst().orElseThrow();
    }

    private String allocated() {
        GenericNode gn = client.resources(GenericNode.class).withName("node-a").get();
        return gn == null || gn.getStatus() == null ? null : Serialization.asJson(gn.getStatus().getAllocatedResources());
    }

    private void resize(String pod, String cpu) {
        client.pods().inNamespace("default").withName(pod).edit(p -> {
            p.getSpec().getContainers().get(0).getResources().getRequests()
                    .put("cpu", new io.fabric8.kubernetes.api.model.Quantity(cpu));
            return p;
        });
    }

    private SlurmNode slurmNode() {
        return slurm.node("node1").await().atMost(WAIT);
    }

    @Test
    void theGenericNodeAndSlurmFollowEachOther() {
        SlurmHarness harness = SlurmHarness.ensure(new SlurmHarness.Shape(1, 8, 32000, true));
        Crds.apply(client);
        client.nodes().resource(aNode("node-a").sharedWith("node1").allocatable("8", "32000Mi").tainted().obj())
                .create();
        client.resource(aPod("agent").in("kube-system").on("node-a").requesting("735m", "345Mi").obj()).create();
        client.resource(aPod("web-0").on("node-a").requesting("1", "2048Mi").obj()).create();

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(allocated()).isEqualTo("[{\"allocated\":{\"cpu\":\"0\",\"memory\":\"0\"},\"type\":\"Slurm\"},"
                    + "{\"allocated\":{\"cpu\":\"1735m\",\"memory\":\"2393Mi\"},\"type\":\"Kubernetes\"}]");
            assertThat(slurmNode().gres()).containsEntry("k8scpu", 6L).containsEntry("k8smemory", 32000L - 2393);
        });
        // a pod resized in place (the resize subresource of Kubernetes 1.33): its new request counts at once
        resize("web-0", "2");
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(allocated()).contains("{\"allocated\":{\"cpu\":\"2735m\",\"memory\":\"2393Mi\"},"
                    + "\"type\":\"Kubernetes\"}");
            assertThat(slurmNode().gres()).containsEntry("k8scpu", 5L);
        });
        resize("web-0", "1");
        await().atMost(WAIT).untilAsserted(() -> assertThat(slurmNode().gres()).containsEntry("k8scpu", 6L));
        GenericNode gn = client.resources(GenericNode.class).withName("node-a").get();
        assertThat(gn.getSpec().getAlias()).isEqualTo("node1");
        assertThat(gn.getSpec().getType()).isEqualTo("Slurm");

        long first = sbatch(harness);
        await().atMost(WAIT).until(() -> job(first).isRunning());
        client.resource(aPod("web-1").on("node-a").requesting("1", "1Gi").obj()).create();

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(allocated()).isEqualTo("[{\"allocated\":{\"cpu\":\"3\",\"memory\":\"4000Mi\"},\"type\":\"Slurm\"},"
                    + "{\"allocated\":{\"cpu\":\"2735m\",\"memory\":\"3417Mi\"},\"type\":\"Kubernetes\"}]");
            assertThat(slurmNode().gres()).containsEntry("k8scpu", 5L).containsEntry("k8smemory", 32000L - 3417);
        });

        long second = sbatch(harness);
        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(job(second).isPending()).isTrue();
            assertThat(job(second).reason()).isEqualTo("Resources");
        });

        client.pods().inNamespace("default").withName("web-1").delete();
        await().atMost(WAIT).until(() -> job(second).isRunning());
    }
}
