package dev.colocate.slurm.rest.v0038;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.colocate.slurm.rest.SlurmError;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.Map;

/** slurmrestd v0.0.38 (Slurm 22.05) payloads, the fields colocate reads; unknown fields are ignored. */
public final class V0038 {

    private V0038() {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Meta(@JsonProperty("Slurm") SlurmVersion slurm) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SlurmVersion(String release) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Ping(String hostname, String ping, String mode) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PingResponse(Meta meta, List<SlurmError> errors, List<Ping> pings) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Statistics(@JsonProperty("req_time_start") Long reqTimeStart) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DiagResponse(List<SlurmError> errors, Statistics statistics) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Node(String name, String state, @JsonProperty("state_flags") List<String> stateFlags, Integer cpus,
            @JsonProperty("real_memory") Long realMemory, @JsonProperty("alloc_cpus") Integer allocCpus,
            @JsonProperty("alloc_memory") Long allocMemory, String gres, @JsonProperty("gres_used") String gresUsed,
            String reason) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record NodesResponse(List<SlurmError> errors, List<Node> nodes) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Job(@JsonProperty("job_id") Long jobId, String name, @JsonProperty("job_state") String jobState,
            @JsonProperty("state_reason") String stateReason, String nodes,
            @JsonProperty("required_nodes") String requiredNodes, @JsonProperty("tres_per_node") String tresPerNode,
            Long priority, String partition, String comment, @JsonProperty("tres_alloc_str") String tresAlloc,
            @JsonProperty("tres_req_str") String tresReq, @JsonProperty("user_name") String userName,
            @JsonProperty("start_time") Long startTime, @JsonProperty("end_time") Long endTime) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Partition(String name, String nodes, List<String> flags,
            @JsonProperty("allowed_groups") String allowedGroups) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PartitionsResponse(List<SlurmError> errors, List<Partition> partitions) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record JobsResponse(List<SlurmError> errors, List<Job> jobs) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SubmitResponse(List<SlurmError> errors, @JsonProperty("job_id") Long jobId) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ErrorsOnly(List<SlurmError> errors) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobProperties(String name, String partition, @JsonProperty("current_working_directory") String cwd,
            @JsonProperty("standard_output") String standardOutput, @JsonProperty("standard_error") String standardError,
            Map<String, String> environment, Integer tasks, @JsonProperty("cpus_per_task") Integer cpusPerTask,
            @JsonProperty("memory_per_node") Long memoryPerNode, String gres, Boolean hold) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SubmitRequest(String script, JobProperties job) {
    }
}
