package dev.colocate.slurm.scontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colocate.slurm.SlurmException;
import dev.colocate.slurm.SlurmMeters;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.server.mock.StatusStreamMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * scontrol run by exec into the slurmctld pod, against the mock API server in expectation mode (CRUD mode has no
 * exec): the argument list reaches the pod unchanged. (A failing scontrol's output is not tested here: the mock
 * delivers exec output and status in an order that varies from run to run.)
 */
class PodExecCommandRunnerTest {

    static final String EXEC = "/api/v1/namespaces/slurm/pods/ctld-0/exec?command=scontrol&command=update"
            + "&command=NodeName%3Dnode1&command=Gres%3Dk8scpu%3A5%2Ck8smemory%3A12000&container=slurmctld"
            + "&stdout=true&stderr=true";

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(false);
        server.init();
        client = server.createClient();
        // exec first looks the pod up and waits for it to run
        Pod ctld = new PodBuilder().withNewMetadata().withName("ctld-0").withNamespace("slurm").withResourceVersion("1")
                .endMetadata().withNewSpec().addNewContainer().withName("slurmctld").withImage("slurm").endContainer()
                .endSpec().withNewStatus().withPhase("Running").endStatus().build();
        server.expect().get().withPath("/api/v1/namespaces/slurm/pods/ctld-0").andReturn(200, ctld).always();
        server.expect().get().withPath("/api/v1/namespaces/slurm/pods?fieldSelector=metadata.name%3Dctld-0")
                .andReturn(200, new PodListBuilder().withNewMetadata().withResourceVersion("1").endMetadata()
                        .addToItems(ctld).build()).always();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    private ScontrolNodeWriter writer() {
        return new ScontrolNodeWriter(new PodExecCommandRunner(client, "slurm", "ctld-0", "slurmctld"), "scontrol",
                "salloc", "sbatch", Duration.ofSeconds(10), new SlurmMeters(new SimpleMeterRegistry()));
    }

    /** The mock answers only the exact exec path, so any other argument list fails the write. */
    @Test
    void setsTheShareByExecWithTheArgumentsAsAList() throws InterruptedException {
        server.expect().withPath(EXEC).andUpgradeToWebSocket().open(new StatusStreamMessage(0)).done().once();

        writer().setKubernetesShare("node1", 5, 12000).await().atMost(Duration.ofSeconds(10));

        assertThat(server.getLastRequest().getPath()).isEqualTo(EXEC);
    }

    @Test
    void releaseSendsTheIdsAsOneArgument() throws InterruptedException {
        String release = "/api/v1/namespaces/slurm/pods/ctld-0/exec?command=scontrol&command=release"
                + "&command=7%2C9&container=slurmctld&stdout=true&stderr=true";
        server.expect().withPath(release).andUpgradeToWebSocket().open(new StatusStreamMessage(0)).done().once();

        writer().release(List.of(7L, 9L)).await().atMost(Duration.ofSeconds(10));

        assertThat(server.getLastRequest().getPath()).isEqualTo(release);
    }

    @Test
    void anExecThatExitsNonZeroFailsTheWrite() {
        server.expect().withPath(EXEC).andUpgradeToWebSocket().open(new StatusStreamMessage(1)).done().once();

        assertThatThrownBy(() -> writer().setKubernetesShare("node1", 5, 12000).await()
                .atMost(Duration.ofSeconds(10))).isInstanceOf(SlurmException.class);
    }
}
