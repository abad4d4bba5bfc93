package dev.colocate.api;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.testing.ChartInstall;
import dev.colocate.testing.KubeHarness;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The chart's CRDs on a real API server: installed and established, their schemas refusing bad SlurmClusters with a
 * message that names the field, every status field colocate writes kept (a structural schema prunes what it does not
 * list), and kubectl showing the printer columns.
 */
@Tag("kube")
class CrdsOnApiServerIT {

    static final String NS = "crds-it";

    static KubeHarness kube;
    static KubernetesClient admin;

    @BeforeAll
    static void install() {
        kube = KubeHarness.ensure();
        admin = kube.admin();
        ChartInstall.crds(admin);
        admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .serverSideApply();
    }

    @AfterAll
    static void uninstall() {
        admin.namespaces().withName(NS).delete();
        admin.resources(GenericNode.class).withName("crds-it-1").delete();
        admin.close();
    }

    private static void refused(Consumer<SlurmCluster> change, String message) {
        SlurmCluster bad = aCluster("bad").inNamespace(NS).withGroup("cpu", 1, "8", "32000Mi").obj();
        bad.getMetadata().setUid(null);
        change.accept(bad);
        assertThatThrownBy(() -> admin.resource(bad).create())
                .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(422))
                .hasMessageContaining(message);
    }

    @Test
    void aSlurmClusterWithBadNumbersOrTwoGroupsOfOneNameIsRefusedNamingTheField() {
        refused(c -> c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(-1),
                "spec.workerGroupSpecs[0].replicas: Invalid value: -1");
        refused(c -> c.getSpec().getWorkerGroupSpecs().get(0).setReplicas(1_000_000),
                "should be less than or equal to 10000");
        refused(c -> c.getSpec().getWorkerGroupSpecs().add(c.getSpec().getWorkerGroupSpecs().get(0)),
                "workerGroupSpecs: groupName must be unique");
        assertThat(admin.resources(SlurmCluster.class).inNamespace(NS).list().getItems()).isEmpty();
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(Object o) {
        return JSON.valueToTree(o);
    }

    private static Condition condition() {
        return new ConditionBuilder().withType("Ready").withStatus("True").withReason("Synced").withMessage("m")
                .withObservedGeneration(1L).withLastTransitionTime("2026-12-07T00:00:00Z").build();
    }

    @Test
    void everyGenericNodeStatusFieldIsKeptAndKubectlShowsTheLedgerColumns() {
        GenericNode gn = new GenericNode();
        gn.getMetadata().setName("crds-it-1");
        gn.getSpec().setClusterName("external");
        gn.getSpec().setAlias("node1");
        gn = admin.resource(gn).create();
        GenericNodeStatus status = new GenericNodeStatus();
        status.setAllocatedResources(List.of(
                new AllocatedResources(AllocatedResources.OWNER_SLURM, Map.of("cpu", new Quantity("2"))),
                new AllocatedResources(AllocatedResources.OWNER_KUBERNETES, Map.of("cpu", new Quantity("1735m"),
                        "memory", new Quantity("2393Mi")))));
        status.setCapacity(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32000Mi")));
        status.setSlurmShare(Map.of("k8scpu", 6L, "k8smemory", 29000L));
        status.setShareMode("holds");
        HoldsStatus holds = new HoldsStatus();
        holds.setCount(1);
        holds.setWaiting(1);
        holds.setCpu(new Quantity("2"));
        holds.setMemory(new Quantity("3Gi"));
        holds.setNeededCpu(new Quantity("1"));
        holds.setNeededMemory(new Quantity("1Gi"));
        holds.setJobIds(List.of(17L, 18L));
        status.setHolds(holds);
        status.setConditions(List.of(condition()));
        Reservation r = new Reservation();
        r.setNamespace("default");
        r.setPodName("web-0");
        r.setPodUid("0b9f6c3e-0000-4000-8000-000000000000");
        r.setRequests(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")));
        r.setExpiresAt("2026-12-07T00:00:30Z");
        status.setReservations(List.of(r));
        status.setObservedGeneration(1L);
        gn.setStatus(status);

        admin.resource(gn).updateStatus();

        assertThat(json(admin.resources(GenericNode.class).withName("crds-it-1").get().getStatus()))
                .isEqualTo(json(status));
        String table = kube.kubectl("get", "genericnode", "crds-it-1");
        assertThat(table.lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "CLUSTERNAME", "ALIAS", "TYPE", "ALLOCATEDRESOURCES");
        assertThat(table).contains("crds-it-1").contains("external").contains("node1").contains("1735m");
        assertThat(kube.kubectl("get", "gn", "crds-it-1", "-o", "name")).contains("genericnode.colocate.dev/crds-it-1");
    }

    @Test
    void everySlurmClusterStatusFieldIsKept() {
        SlurmCluster cluster = aCluster("kept").inNamespace(NS).withGroup("cpu", 2, "8", "32000Mi").obj();
        cluster.getMetadata().setUid(null);
        cluster = admin.resource(cluster).create();
        SlurmClusterStatus status = new SlurmClusterStatus();
        status.setConditions(List.of(condition()));
        status.setWorkers("1/2");
        status.setAvailableWorkers(Map.of("cpu", 1));
        status.setLeavingWorkers(List.of("kept-worker-cpu-1"));
        status.setObservedGeneration(1L);
        cluster.setStatus(status);

        admin.resource(cluster).updateStatus();

        assertThat(json(admin.resources(SlurmCluster.class).inNamespace(NS).withName("kept").get().getStatus()))
                .isEqualTo(json(status));
        assertThat(kube.kubectl("-n", NS, "get", "slurm", "kept").lines().findFirst().orElseThrow().split("\\s+"))
                .containsExactly("NAME", "READY", "WORKERS", "AGE");
    }
}
