package dev.colocate.slurm.rest;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.colocate.slurm.HoldRequest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What a hold asks slurmrestd for, per API version: a batch script or an external job. */
class HoldBodiesTest {

    private static final HoldRequest HOLD = new HoldRequest("node1", "node-a", 2, 2048, false, "holds");
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest(name = "{0}: external job {1}")
    @CsvSource({
        // Slurm 23.11 to 25.11 serve at most v0.0.44; 24.11 creates the job yet answers an error for the flag
        "v0.0.41, false",
        "v0.0.42, false",
        "v0.0.44, false",
        // only Slurm 26.05 and later serve v0.0.45
        "v0.0.45, true",
    })
    void holdsAreExternalJobsOnlyWhereSlurmTakesThem(String version, boolean external) {
        Dialect dialect = Dialects.of(version);

        JsonNode queued = JSON.valueToTree(dialect.holdSubmitRequest(HOLD));
        JsonNode immediate = JSON.valueToTree(dialect.allocateRequest(HOLD));

        assertThat(queued.has("script")).as("a queued hold runs a script unless it is external").isEqualTo(!external);
        for (JsonNode body : new JsonNode[] {queued, immediate}) {
            assertThat(body.path("job").path("flags").toString())
                    .isEqualTo(external ? "[\"EXTERNAL_JOB\"]" : "");
            assertThat(body.path("job").path("required_nodes").toString()).isEqualTo("[\"node1\"]");
            assertThat(body.path("job").path("cpus_per_task").asInt()).isEqualTo(2);
        }
        assertThat(immediate.has("script")).isFalse();
        assertThat(immediate.path("job").path("immediate").asBoolean()).isTrue();
    }
}
