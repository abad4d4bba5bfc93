package dev.colocate.slurm.scontrol;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
class PodExecCommandRunnerTest {

    KubernetesClient client;

    private static Pod pod(String name, String phase, String ready) {
        return new PodBuilder().withNewMetadata().withName(name).withNamespace("slurm").endMetadata()
                .withNewStatus().withPhase(phase).addNewCondition().withType("Ready").withStatus(ready).endCondition()
                .endStatus().build();
    }

    @Test
    void withABackupControllerCommandsRunInTheBackupsPodWhileThePrimarysIsNotReady() {
        PodExecCommandRunner runner = new PodExecCommandRunner(client, "slurm",
                List.of("ha-slurmctld-0", "ha-slurmctld-1"), "slurmctld");
        assertThat(runner.readyPod()).isEmpty();
        assertThat(runner.run(List.of("scontrol", "ping")).await().atMost(Duration.ofSeconds(10)).stderr())
                .isEqualTo("none of the pods [ha-slurmctld-0, ha-slurmctld-1] in slurm is ready");

        client.resource(pod("ha-slurmctld-0", "Running", "False")).create();
        client.resource(pod("ha-slurmctld-1", "Running", "True")).create();
        assertThat(runner.readyPod()).contains("ha-slurmctld-1");

        client.resource(pod("ha-slurmctld-0", "Running", "True")).update();
        assertThat(runner.readyPod()).contains("ha-slurmctld-0");
    }
}
