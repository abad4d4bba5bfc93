package dev.colocate.operator.model;

import static dev.colocate.testing.TestClusters.aCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.colocate.api.SlurmCluster;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class SlurmFilesTest {

    private static final String LUA = "-- lua\n";

    private static SlurmFiles.Rendered render(SlurmCluster cluster) {
        return SlurmFiles.render(cluster, LUA);
    }

    private static SlurmCluster withUserSlurmConf(String text) {
        return aCluster("c").withGroup("cpu", 2, "4", "8Gi").withFile("slurm.conf", text).obj();
    }

    /** A user's slurm.conf line, and the problem it makes (null: accepted). */
    static Stream<Arguments> userSlurmConfLines() {
        return Stream.of(
                Arguments.of("SchedulerParameters=bf_continue", null),
                Arguments.of("GresTypes=k8scpu,k8smemory,gpu", null),
                Arguments.of("JobSubmitPlugins=lua,require_timelimit", null),
                Arguments.of("SelectTypeParameters=CR_CPU_Memory", null),
                // ACK's samples leave values empty; an empty value keeps what the operator renders
                Arguments.of("JobCompHost=", null),
                Arguments.of("PartitionName=debug Nodes=ALL MaxTime=1:00:00", null),
                Arguments.of("GresTypes=gpu", "slurm.conf line 1: GresTypes=gpu leaves out k8scpu,k8smemory"),
                Arguments.of("JobSubmitPlugins=k8s_resource_completion",
                        "JobSubmitPlugins=k8s_resource_completion leaves out lua: colocate's job_submit.lua takes "
                                + "the place of ACK's k8s_resource_completion"),
                Arguments.of("NodeFeaturesPlugins=node_features/k8s_resources", "is ACK's own plugin"),
                Arguments.of("SelectTypeParameters=CR_Core", "leaves memory unallocated"),
                Arguments.of("AuthAltTypes=auth/none", "leaves out auth/jwt"),
                Arguments.of("ClusterName=other", "ClusterName=other must be c"),
                Arguments.of("AuthAltParameters=jwt_key=/var/jwt/jwt_hs256.key",
                        "must be jwt_key=/run/colocate-slurm/jwt_hs256.key"),
                Arguments.of("JobCompPass=secret", "passwords belong in a Secret"),
                Arguments.of("NodeName=c-worker-cpu-9 CPUs=2", "names a worker node"),
                Arguments.of("PartitionName=holds Nodes=ALL", "is rendered by colocate"),
                Arguments.of("CPUs 4", "slurm.conf line 1: \"CPUs\" is not Key=Value"),
                Arguments.of("SlurmctldDebug=\"info", "slurm.conf line 1: a quote is not closed"));
    }

    @ParameterizedTest
    @MethodSource("userSlurmConfLines")
    void aUserSlurmConfLineIsMergedOrRefusedWithAReason(String line, String problem) {
        SlurmFiles.Rendered r = render(withUserSlurmConf("# site settings\n" + line + "\n"));
        if (problem == null) {
            assertThat(r.problems()).isEmpty();
        } else {
            assertThat(r.problems()).singleElement().asString().contains(problem.replace("line 1", "line 2"));
        }
    }

    @Test
    void aUserSettingReplacesTheRenderedOneInPlaceAndNewOnesFollow() {
        String conf = render(withUserSlurmConf("DefMemPerCPU=2048\nSchedulerParameters=bf_continue\n"))
                .files().get("slurm.conf");
        assertThat(conf).contains("DefMemPerCPU=2048\n").doesNotContain("DefMemPerCPU=1024");
        assertThat(conf.indexOf("SchedulerParameters=bf_continue")).isGreaterThan(conf.indexOf("PartitionName=holds"));
    }

    @Test
    void workersBecomeNodeLinesAPartitionPerGroupAndTheHoldsPartitionOverTheSharedOnes() {
        SlurmCluster cluster = aCluster("c").withGroup("cpu", 3, "4", "8Gi").withGroup("gpu", 1, "8", "31.5Gi")
                .withGroup("batch", 2, "2", "4Gi").unshared().withGroup("idle", 0, "2", "4Gi").obj();
        String conf = render(cluster).files().get("slurm.conf");
        assertThat(conf)
                .contains("ClusterName=c\n")
                .contains("SlurmctldHost=c-slurmctld-0(c-slurmctld-0.c-slurmctld)\n")
                .contains("NodeName=c-worker-cpu-[0-2] CPUs=4 RealMemory=8192 Gres=k8scpu:4,k8smemory:8192 "
                        + "Feature=cpu State=UNKNOWN\n")
                .contains("NodeName=c-worker-gpu-0 CPUs=8 RealMemory=32256 Gres=k8scpu:8,k8smemory:32256")
                .contains("PartitionName=cpu Nodes=c-worker-cpu-[0-2] Default=YES MaxTime=INFINITE State=UP\n")
                .contains("PartitionName=batch Nodes=c-worker-batch-[0-1] MaxTime=INFINITE State=UP\n")
                .contains("PartitionName=holds Nodes=c-worker-cpu-[0-2],c-worker-gpu-0 PriorityTier=65000 "
                        + "PreemptMode=OFF MaxTime=INFINITE Hidden=YES RootOnly=YES State=UP\n")
                .doesNotContain("c-worker-idle")
                .contains("GresTypes=k8scpu,k8smemory\n")
                .contains("JobSubmitPlugins=lua\n")
                // slurmctld reads the key as SlurmUser: the entrypoint's copy, not the root-owned Secret file
                .contains("AuthAltParameters=jwt_key=/run/colocate-slurm/jwt_hs256.key\n")
                // a restarted worker pod has a new address
                .contains("CommunicationParameters=NoAddrCache\n")
                .doesNotContain("AccountingStorageType");
    }

    @Test
    void aUserDefaultPartitionTakesTheDefaultFromTheFirstGroup() {
        String conf = render(withUserSlurmConf("PartitionName=all Nodes=ALL Default=YES\n")).files().get("slurm.conf");
        assertThat(conf).contains("PartitionName=cpu Nodes=c-worker-cpu-[0-1] MaxTime=INFINITE")
                .contains("PartitionName=all Nodes=ALL Default=YES");
    }

    @Test
    void gresConfKeepsTheK8sLinesOnceAndAddsTheUsersOthers() {
        SlurmFiles.Rendered r = render(aCluster("c").withGroup("cpu", 1, "4", "8Gi").withFile("gres.conf",
                "Name=k8scpu  Flags=CountOnly\nName=k8smemory Flags=CountOnly\nNodeName=c-worker-cpu-0 Name=gpu "
                        + "File=/dev/nvidia0\n").obj());
        assertThat(r.problems()).isEmpty();
        String gres = r.files().get("gres.conf");
        assertThat(gres.split("Name=k8scpu Flags=CountOnly", -1)).hasSize(2);
        assertThat(gres).contains("NodeName=c-worker-cpu-0 Name=gpu File=/dev/nvidia0");

        SlurmFiles.Rendered changed = render(aCluster("c").withGroup("cpu", 1, "4", "8Gi")
                .withFile("gres.conf", "Name=k8scpu Count=4\n").obj());
        assertThat(changed.problems()).singleElement().asString().contains("is colocate's");
    }

    @Test
    void gpusAreOfferedInSlurmConfAndLeftToTheEntrypointOrTheUserToName() {
        SlurmFiles.Rendered counted = render(aCluster("c").withGroup("gpu", 1, "8", "32Gi").withGpus(4).obj());
        assertThat(counted.problems()).isEmpty();
        assertThat(counted.files().get("slurm.conf")).contains("GresTypes=k8scpu,k8smemory,gpu\n")
                .contains(" Gres=k8scpu:8,k8smemory:32768,gpu:4 ");
        // slurmd drops a GPU line without File= and the node drains: the entrypoint names the pod's devices
        assertThat(counted.files().get("gres.conf")).doesNotContain("Name=gpu");

        SlurmFiles.Rendered named = render(aCluster("c").withGroup("gpu", 1, "8", "32Gi").withGpus(4)
                .withFile("gres.conf", "NodeName=c-worker-gpu-0 Name=gpu File=/dev/nvidia[0-3]\n").obj());
        assertThat(named.problems()).isEmpty();
        assertThat(named.files().get("gres.conf")).contains("Name=gpu File=/dev/nvidia[0-3]")
                .doesNotContain("Count=4");

        SlurmFiles.Rendered leftOut = render(aCluster("c").withGroup("gpu", 1, "8", "32Gi").withGpus(4)
                .withFile("slurm.conf", "GresTypes=k8scpu,k8smemory\n").obj());
        assertThat(leftOut.problems()).singleElement().asString().contains("leaves out gpu");
    }

    @Test
    void accountingRendersSlurmdbdConfWithoutThePasswordAndPointsSlurmConfAtIt() {
        SlurmCluster cluster = aCluster("c").withGroup("cpu", 1, "4", "8Gi")
                .withAccounting("mariadb.db", "slurm", "db-pass", "password")
                .withFile("slurmdbd.conf", "LogFile=/var/log/slurmdbd.log\nStoragePass=\n").obj();
        SlurmFiles.Rendered r = render(cluster);
        assertThat(r.problems()).isEmpty();
        assertThat(r.files().get("slurm.conf")).contains("AccountingStorageType=accounting_storage/slurmdbd\n")
                .contains("AccountingStorageHost=c-slurmdbd\n").contains("AccountingStoragePort=6819\n");
        assertThat(r.files().get("slurmdbd.conf")).contains("DbdHost=c-slurmdbd\n").contains("StorageHost=mariadb.db\n")
                .contains("StorageUser=slurm\n").contains("LogFile=/var/log/slurmdbd.log").doesNotContain("StoragePass");

        cluster.getSpec().getSlurmConfigs().getFilesInConfigMap().put("slurmdbd.conf", "StoragePass=hunter2\n");
        assertThat(render(cluster).problems()).singleElement().asString()
                .contains("slurmdbd.conf line 1: StoragePass=hunter2").contains("never in a ConfigMap");
    }

    @Test
    void userFilesOfOtherNamesAndTheirOwnJobSubmitScriptAreKeptAsGiven() {
        SlurmFiles.Rendered r = render(aCluster("c").withGroup("cpu", 1, "4", "8Gi")
                .withFile("plugstack.conf", "required x.so\n").withFile("job_submit.lua", "-- site\n").obj());
        assertThat(r.files()).containsEntry("plugstack.conf", "required x.so\n")
                .containsEntry("job_submit.lua", "-- site\n")
                .containsKeys("slurm.conf", "gres.conf", "cgroup.conf").doesNotContainKey("slurmdbd.conf");
        assertThat(render(aCluster("c").obj()).files()).containsEntry("job_submit.lua", LUA);
    }

    @Test
    void theHoldsPartitionHasTheNameTheCopilotHoldsIn() {
        SlurmCluster cluster = aCluster("c").withGroup("cpu", 1, "4", "8Gi").obj();
        SlurmFiles.Rendered files = SlurmFiles.render(cluster, LUA, null, "k8s-share");
        assertThat(files.files().get("slurm.conf")).contains("PartitionName=k8s-share Nodes=c-worker-cpu-0 ")
                .doesNotContain("PartitionName=holds");
        // the user's slurm.conf may not define it
        SlurmCluster taken = aCluster("c").withGroup("cpu", 1, "4", "8Gi")
                .withFile("slurm.conf", "PartitionName=K8S-SHARE Nodes=ALL\n").obj();
        assertThat(SlurmFiles.render(taken, LUA, null, "k8s-share").problems())
                .anySatisfy(p -> assertThat(p).contains("PartitionName=K8S-SHARE is rendered by colocate"));
    }

    @Test
    void theShippedJobSubmitLuaLeavesAloneOnlyTheHoldsInThePartitionTheCopilotHoldsIn() throws Exception {
        String shipped = java.nio.file.Files.readString(java.nio.file.Path.of("src/main/slurm/job_submit.lua"));
        assertThat(shipped).contains(SlurmFiles.LUA_HOLDS_PARTITION);
        SlurmCluster cluster = aCluster("c").withGroup("cpu", 1, "4", "8Gi").obj();
        assertThat(SlurmFiles.render(cluster, shipped, null, "k8s-share").files().get("job_submit.lua"))
                .contains("local HOLDS_PARTITION = \"k8s-share\"").doesNotContain(SlurmFiles.LUA_HOLDS_PARTITION);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> SlurmFiles.render(cluster, shipped, null,
                "a\"b")).hasMessageContaining("is not a Slurm partition name");
    }

    @Test
    void rs256AddsTheJwksToTheFilesAndToAuthAltParameters() {
        SlurmCluster cluster = aCluster("c").withGroup("cpu", 1, "4", "8Gi").obj();
        SlurmFiles.Rendered hs = SlurmFiles.render(cluster, LUA, null, "holds");
        SlurmFiles.Rendered rs = SlurmFiles.render(cluster, LUA, "{\"keys\":[]}\n", "holds");

        assertThat(hs.files().get("slurm.conf")).contains("AuthAltParameters=jwt_key=/run/colocate-slurm/jwt_hs256.key\n");
        assertThat(hs.files()).doesNotContainKey("jwks.json");
        assertThat(rs.files().get("slurm.conf")).contains("AuthAltParameters=jwt_key=/run/colocate-slurm/jwt_hs256.key,"
                + "jwks=/etc/slurm/jwks.json\n");
        assertThat(rs.files()).containsEntry("jwks.json", "{\"keys\":[]}\n");
        assertThat(rs.problems()).isEmpty();
    }
}
