package dev.colocate.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.testing.SlurmHarnessResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Twenty slurmd on one host (Slurm 22.05), listed in one nodes() call and written one by one. */
@QuarkusTest
@Tag("slurm")
@WithKubernetesTestServer(crud = true)
@QuarkusTestResource(value = SlurmHarnessResource.class, restrictToAnnotatedClass = true,
        initArgs = @ResourceArg(name = "nodes", value = "20"))
class SlurmManyNodesIT {

    @Inject
    SlurmControl slurm;

    @Test
    void listsEveryNodeWithItsOwnCounts() {
        List<String> expected = IntStream.rangeClosed(1, 20).mapToObj(i -> "node" + i).toList();

        slurm.setKubernetesShare("node7", 3, 7000).await().atMost(Duration.ofSeconds(30));
        List<SlurmNode> nodes = slurm.nodes().await().atMost(Duration.ofSeconds(30));

        assertThat(nodes).extracting(SlurmNode::name).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(nodes).allSatisfy(n -> {
            assertThat(n.cpus()).isEqualTo(8);
            assertThat(n.state()).containsAnyOf("IDLE", "MIXED");
        });
        assertThat(nodes).filteredOn(n -> n.name().equals("node7")).singleElement()
                .satisfies(n -> assertThat(n.gres()).containsEntry("k8scpu", 3L).containsEntry("k8smemory", 7000L));
        assertThat(nodes).filteredOn(n -> !n.name().equals("node7"))
                .allSatisfy(n -> assertThat(n.gres()).containsEntry("k8scpu", 8L));
    }
}
