package dev.colocate.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.Test;

class GenericNodeTableTest {

    private static GenericKubernetesResource genericNode(String name, String alias, String allocated) {
        return Serialization.unmarshal("""
                {"apiVersion": "colocate.dev/v1alpha1", "kind": "GenericNode", "metadata": {"name": "%s"},
                 "spec": {"clusterName": "external", "alias": "%s", "type": "Slurm"},
                 "status": {"allocatedResources": %s}}
                """.formatted(name, alias, allocated), GenericKubernetesResource.class);
    }

    @Test
    void printsTheColumnsOfKubectlGetGenericNodeAlignedAndSortedByName() {
        String table = GenericNodeTable.of(List.of(
                genericNode("node-b", "node2", "[]"),
                genericNode("node-a", "node1", """
                        [{"type": "Slurm", "allocated": {"memory": "4000Mi", "cpu": "3"}},
                         {"type": "Kubernetes", "allocated": {"memory": "3417Mi", "cpu": "2735m"}}]""")));

        assertThat(table).isEqualTo("""
                NAME     CLUSTERNAME   ALIAS   TYPE    ALLOCATEDRESOURCES
                node-a   external      node1   Slurm   [{"allocated":{"cpu":"3","memory":"4000Mi"},"type":"Slurm"},\
                {"allocated":{"cpu":"2735m","memory":"3417Mi"},"type":"Kubernetes"}]
                node-b   external      node2   Slurm   []
                """);
    }

    @Test
    void aGenericNodeTheCopilotHasNotWrittenYetShowsNone() {
        GenericKubernetesResource fresh = Serialization.unmarshal("""
                {"apiVersion": "colocate.dev/v1alpha1", "kind": "GenericNode", "metadata": {"name": "node-c"},
                 "spec": {"clusterName": "external", "alias": "node3", "type": "Slurm"}}
                """, GenericKubernetesResource.class);

        assertThat(GenericNodeTable.of(List.of(fresh)).lines().skip(1).findFirst().orElseThrow())
                .isEqualTo("node-c   external      node3   Slurm   <none>");
    }
}
