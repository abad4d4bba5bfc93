package dev.colocate.copilot;

import static dev.colocate.testing.TestNodes.aNode;
import static dev.colocate.testing.TestPods.aPod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.Labels;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which Slurm serves a shared node: a SlurmCluster's for the slurmd pods the operator made, else the configured one. */
class SharedNodesTest {

    @Test
    void eachNodeIsServedByTheSlurmItsSlurmdBelongsTo() {
        var nodes = List.of(aNode("k1").obj(), aNode("k2").obj(), aNode("k3").obj(), aNode("k4").sharedWith("node7").obj());
        var pods = List.of(
                // the operator's slurmd pods: their SlurmCluster, by namespace and name
                aPod("demo-worker-cpu-0").in("team-a").on("k1").labelled(Labels.COMPONENT, "slurmd")
                        .labelled(Labels.CLUSTER, "demo").labelled(Labels.MANAGED_BY, Labels.MANAGER).obj(),
                aPod("demo-worker-cpu-0").in("team-b").on("k2").labelled(Labels.COMPONENT, "slurmd")
                        .labelled(Labels.CLUSTER, "demo").labelled(Labels.MANAGED_BY, Labels.MANAGER).obj(),
                // a slurmd pod someone else made (ACK's chart, a DaemonSet): the configured Slurm
                aPod("slurmd-x").in("hpc").on("k3").labelled(Labels.COMPONENT, "slurmd")
                        .labelled(Labels.CLUSTER, "hpc").obj());

        var shared = SharedNodes.resolve(nodes, pods, "external");

        assertThat(shared.get("k1")).isEqualTo(new SharedNode("k1", "demo-worker-cpu-0", "demo", "team-a"));
        assertThat(shared.get("k1").slurmKey()).isEqualTo("team-a/demo");
        assertThat(shared.get("k2").slurmKey()).isEqualTo("team-b/demo");
        assertThat(shared.get("k3")).isEqualTo(new SharedNode("k3", "slurmd-x", "hpc"));
        assertThat(shared.get("k3").slurmKey()).isEqualTo(SlurmLinks.CONFIGURED);
        assertThat(shared.get("k4")).isEqualTo(new SharedNode("k4", "node7", "external"));
        assertThat(shared.get("k4").slurmKey()).isEqualTo(SlurmLinks.CONFIGURED);
    }

    @Test
    void aSlurmClustersRestApiIsReachedAtItsServicesClusterIpElseItsName() {
        var withIp = new ServiceBuilder().withNewMetadata().withName("demo-slurmrestd").withNamespace("team-a")
                .endMetadata().withNewSpec().withClusterIP("10.96.4.7").addNewPort().withPort(6820).endPort()
                .endSpec().build();
        var withoutIp = new ServiceBuilder(withIp).editSpec().withClusterIP(null).withPorts(List.of()).endSpec()
                .build();
        var ipv6 = new ServiceBuilder(withIp).editSpec().withClusterIP("fd00::a").endSpec().build();

        assertThat(dev.colocate.slurm.ClusterSlurms.url(withIp)).hasToString("http://10.96.4.7:6820");
        assertThat(dev.colocate.slurm.ClusterSlurms.url(withoutIp)).hasToString("http://demo-slurmrestd.team-a.svc:6820");
        assertThat(dev.colocate.slurm.ClusterSlurms.url(ipv6)).hasToString("http://[fd00::a]:6820");
    }
}
