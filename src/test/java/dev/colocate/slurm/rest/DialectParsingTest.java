package dev.colocate.slurm.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.slurm.JobSpec;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmPartition;
import dev.colocate.slurm.SlurmNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DialectParsingTest {

    private final ObjectMapper json = new ObjectMapper();

    @Test
    void v0038NodesCarryStateCpusMemoryAndKubernetesGres() {
        List<SlurmNode> nodes = Dialects.of("v0.0.38").nodes(RecordedResponses.load("v0038/nodes.json"));

        assertThat(nodes).singleElement().satisfies(n -> {
            assertThat(n.name()).isEqualTo("vm");
            assertThat(n.state()).containsExactly("IDLE");
            assertThat(n.cpus()).isEqualTo(16);
            assertThat(n.realMemoryMb()).isEqualTo(64000);
            assertThat(n.allocCpus()).isZero();
            assertThat(n.gres()).isEqualTo(Map.of("k8scpu", 8L, "k8smemory", 16000L));
            assertThat(n.gresUsed(SlurmNode.K8S_CPU)).isZero();
        });
    }

    @Test
    void v0042NodesReadTheStateFlagListAndTheInvalidRegReason() {
        List<SlurmNode> nodes = Dialects.of("v0.0.42").nodes(RecordedResponses.load("v0042/nodes.json"));

        SlurmNode node1 = nodes.stream().filter(n -> n.name().equals("node1")).findFirst().orElseThrow();
        assertThat(node1.state()).containsExactlyInAnyOrder("MIXED", "DRAIN", "INVALID_REG");
        assertThat(node1.is("INVALID_REG")).isTrue();
        assertThat(node1.gres()).isEqualTo(Map.of("k8scpu", 4L, "k8smemory", 12000L));
        assertThat(node1.gresUsed()).isEqualTo(Map.of("k8scpu", 3L, "k8smemory", 4000L));
        assertThat(node1.allocCpus()).isEqualTo(1);
        assertThat(node1.reason()).contains("count changed and jobs are using them");
    }

    @Test
    void v0038JobsKeepStateReasonAndTres() {
        List<SlurmJob> jobs = Dialects.of("v0.0.38").jobs(RecordedResponses.load("v0038/jobs.json"));

        assertThat(jobs).isNotEmpty();
        SlurmJob seven = jobs.stream().filter(j -> j.id() == 7).findFirst().orElseThrow();
        assertThat(seven.state()).isEqualTo("CANCELLED");
        assertThat(seven.tresPerNode()).isEqualTo("gres:k8scpu:3,gres:k8smemory:4000");
        assertThat(seven.isOn("vm")).isTrue();
        assertThat(jobs).extracting(SlurmJob::user).contains("root", "alice");
    }

    @Test
    void v0042JobsUnwrapStateListsAndNumberObjects() {
        List<SlurmJob> jobs = Dialects.of("v0.0.42").jobs(RecordedResponses.load("v0042/jobs.json"));

        SlurmJob one = jobs.stream().filter(j -> j.id() == 1).findFirst().orElseThrow();
        assertThat(one.name()).isEqualTo("hold");
        assertThat(one.state()).isEqualTo("CANCELLED");
        assertThat(one.priority()).isEqualTo(1);
        assertThat(one.isOn("node1")).isTrue();
        assertThat(jobs).extracting(SlurmJob::user).contains("root", "alice");
    }

    @Test
    void aPartitionClosedWithRootOnlyIsToldFromAnOpenOneWhereSlurmrestdShowsIt() {
        java.util.function.BiFunction<String, String, SlurmPartition.Access> holds = (version, file) -> Dialects
                .of(version).partitions(RecordedResponses.load(file)).stream()
                .filter(p -> p.name().equals("holds")).findFirst().orElseThrow().access();
        assertThat(holds.apply("v0.0.38", "v0038/partitions-open.json")).isEqualTo(SlurmPartition.Access.OPEN);
        assertThat(holds.apply("v0.0.38", "v0038/partitions-rootonly.json")).isEqualTo(SlurmPartition.Access.CLOSED);
        assertThat(holds.apply("v0.0.45", "v0045/partitions-open.json")).isEqualTo(SlurmPartition.Access.OPEN);
        assertThat(holds.apply("v0.0.45", "v0045/partitions-rootonly.json")).isEqualTo(SlurmPartition.Access.CLOSED);
        // Slurm 24.11's v0.0.42 lists no flags: RootOnly=YES there looks as an open partition does
        assertThat(holds.apply("v0.0.42", "v0042/partitions-rootonly.json"))
                .isEqualTo(SlurmPartition.Access.UNSHOWN);
    }

    @Test
    void anEndedJobSaysWhenItStartedAndEndedInBothDialects() {
        SlurmJob cancelled = Dialects.of("v0.0.38").jobs(RecordedResponses.load("v0038/jobs.json")).stream()
                .filter(j -> j.id() == 7).findFirst().orElseThrow();
        assertThat(cancelled.isActive()).isFalse();
        assertThat(cancelled.startTime()).isEqualTo(1796216719L);
        assertThat(cancelled.endTime()).isEqualTo(1796216735L);
        SlurmJob cancelled42 = Dialects.of("v0.0.42").jobs(RecordedResponses.load("v0042/jobs.json")).stream()
                .filter(j -> j.id() == 1).findFirst().orElseThrow();
        assertThat(cancelled42.isActive()).isFalse();
        assertThat(cancelled42.startTime()).isEqualTo(1796217939L);
        assertThat(cancelled42.endTime()).isEqualTo(1796218038L);
    }

    @Test
    void v0042SubmitAnswerGivesTheJobId() {
        assertThat(Dialects.of("v0.0.42").submittedJobId(RecordedResponses.load("v0042/submit1.json"))).isEqualTo(1);
    }

    @Test
    void slurm2605NodesJobsAndAllocationsReadAsIn2411() {
        Dialect d = Dialects.of("v0.0.45");
        SlurmNode node1 = d.nodes(RecordedResponses.load("v0045/nodes.json")).stream()
                .filter(n -> n.name().equals("node1")).findFirst().orElseThrow();
        assertThat(node1.state()).containsExactly("MIXED");
        assertThat(node1.gres()).isEqualTo(Map.of("k8scpu", 5L, "k8smemory", 12000L));
        assertThat(node1.gresUsed()).isEqualTo(Map.of("k8scpu", 3L, "k8smemory", 1500L));
        assertThat(node1.allocCpus()).isEqualTo(2);

        List<SlurmJob> jobs = d.jobs(RecordedResponses.load("v0045/jobs.json"));
        assertThat(jobs).filteredOn(j -> j.id() == 4).singleElement().satisfies(hold -> {
            assertThat(hold.partition()).isEqualTo("holds");
            assertThat(hold.name()).isEqualTo("colocate-hold");
            // the token's user: slurmrestd submits as the user the token speaks for
            assertThat(hold.user()).isEqualTo("slurm");
        });
        assertThat(d.submittedJobId(RecordedResponses.load("v0045/job-allocate.json"))).isEqualTo(4);
        assertThat(d.canAllocate()).isTrue();
        // a refused immediate allocation: HTTP 422 on 26.05 (500 on 24.11), the same error in the body
        assertThat(d.errors(RecordedResponses.load("v0045/job-allocate-refused.json")))
                .singleElement().satisfies(e -> assertThat(e.number()).isEqualTo(2016));
        assertThat(d.errors(RecordedResponses.load("v0045/node-update-nonadmin.json")).get(0).number())
                .isEqualTo(2010);
    }

    @Test
    void unknownFieldsAreIgnored() throws Exception {
        JsonNode body = json.readTree("{\"nodes\":[{\"name\":\"n1\",\"state\":[\"IDLE\"],\"future_field\":{\"a\":1},"
                + "\"gres\":\"\",\"gres_used\":\"\"}],\"errors\":[],\"warnings\":[],\"new_top_level\":true}");

        assertThat(Dialects.of("v0.0.41").nodes(body)).extracting(SlurmNode::name).containsExactly("n1");
    }

    @Test
    void bothErrorShapesOfSlurm2205AreRead() throws Exception {
        Dialect d = Dialects.of("v0.0.38");
        // ping's shape and nodes' shape, both seen from slurmrestd 22.05 for a token it could not verify
        JsonNode ping = json.readTree("{\"errors\":[{\"description\":\"slurmctld config is unable to load\","
                + "\"error_number\":-1,\"error\":\"Unspecified error\",\"source\":\"slurm_load_ctl_conf\"}]}");
        JsonNode nodes = json.readTree("{\"errors\":[{\"error\":\"Unspecified error\",\"errno\":-1}],\"nodes\":[]}");

        assertThat(d.errors(ping)).singleElement().satisfies(e -> {
            assertThat(e.message()).isEqualTo("slurmctld config is unable to load: Unspecified error");
            assertThat(e.number()).isEqualTo(-1);
        });
        assertThat(d.errors(nodes)).singleElement().satisfies(e -> {
            assertThat(e.message()).isEqualTo("Unspecified error");
            assertThat(e.number()).isEqualTo(-1);
        });
    }

    @Test
    void slurm2411RefusedTokensAndNonAdminWritesAreRecognised() {
        Dialect d = Dialects.of("v0.0.42");

        SlurmError expired = d.errors(RecordedResponses.load("v0042/diag-expired-token.json")).get(0);
        assertThat(d.isAuthFailure(511, expired)).isTrue();
        assertThat(expired.number()).isEqualTo(1007);

        SlurmError nonAdmin = d.errors(RecordedResponses.load("v0042/node-update-nonadmin.json")).get(0);
        assertThat(nonAdmin.number()).isEqualTo(2010);
        assertThat(nonAdmin.message()).isEqualTo("Failure to update node node1: Invalid user id");
        assertThat(d.isAuthFailure(500, nonAdmin)).isFalse();
    }

    @Test
    void slurm2411ReportsAnUnknownJobOnCancelInsideA200() {
        List<SlurmError> errors = Dialects.of("v0.0.42").errors(RecordedResponses.load("v0042/job-delete-unknown.json"));

        assertThat(errors).singleElement().satisfies(e -> {
            assertThat(e.number()).isEqualTo(2017);
            assertThat(e.message()).isEqualTo("Invalid job id specified");
        });
    }

    @Test
    void v0042SubmitPinsTheNodeAndSpellsGresAsTres() {
        Object body = Dialects.of("v0.0.42").submitRequest(
                JobSpec.sleep("j", 60, 3, 4000).on("node1").withGres("k8scpu:3,k8smemory:4000"));

        JsonNode tree = json.valueToTree(body);
        assertThat(tree.path("script").asText()).startsWith("#!/bin/sh");
        assertThat(tree.path("job").path("required_nodes").get(0).asText()).isEqualTo("node1");
        assertThat(tree.path("job").path("tres_per_node").asText()).isEqualTo("gres/k8scpu:3,gres/k8smemory:4000");
        assertThat(tree.path("job").path("memory_per_node").path("number").asLong()).isEqualTo(4000);
        assertThat(tree.path("job").path("cpus_per_task").asInt()).isEqualTo(3);
    }

    @Test
    void v0038SubmitSendsGresAsIs() {
        JsonNode tree = json.valueToTree(Dialects.of("v0.0.38").submitRequest(
                new JobSpec("j", "#!/bin/sh\ntrue\n", 2, 100, Optional.empty(), Optional.of("k8scpu:2"), "/dev/null")));

        assertThat(tree.path("job").path("gres").asText()).isEqualTo("k8scpu:2");
        assertThat(tree.path("job").path("memory_per_node").asLong()).isEqualTo(100);
        assertThat(tree.path("job").has("hold")).isFalse();
    }
}
