package dev.colocate.slurm.rest.v004x;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.colocate.slurm.rest.SlurmError;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * slurmrestd v0.0.40 to v0.0.42 (Slurm 23.11 to 24.11) payloads, the fields colocate reads. These versions agree on
 * them: states are lists of flags and many numbers are {@code {set, infinite, number}} objects.
 */
public final class V004x {

    private V004x() {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Number(Boolean set, Boolean infinite, Long number) {
        public long orZero() {
            return Boolean.FALSE.equals(set) || number == null ? 0 : number;
        }

        public static Number of(long value) {
            return new Number(true, false, value);
        }

        public static Number unlimited() {
            return new Number(true, true, null);
        }
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Meta(SlurmVersion slurm) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SlurmVersion(String release) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Ping(String hostname, String pinged, Boolean responding, String mode) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PingResponse(Meta meta, List<SlurmError> errors, List<Ping> pings) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Statistics(@JsonProperty("req_time_start") Number reqTimeStart) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record DiagResponse(List<SlurmError> errors, Statistics statistics) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Node(String name, List<String> state, Integer cpus, @JsonProperty("real_memory") Long realMemory,
            @JsonProperty("alloc_cpus") Integer allocCpus, @JsonProperty("alloc_memory") Long allocMemory,
            String gres, @JsonProperty("gres_used") String gresUsed, String reason) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record NodesResponse(List<SlurmError> errors, List<Node> nodes) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Job(@JsonProperty("job_id") Long jobId, String name, @JsonProperty("job_state") List<String> jobState,
            @JsonProperty("state_reason") String stateReason, String nodes,
            @JsonProperty("required_nodes") String requiredNodes, @JsonProperty("tres_per_node") String tresPerNode,
            Number priority, String partition, String comment, @JsonProperty("tres_alloc_str") String tresAlloc,
            @JsonProperty("tres_req_str") String tresReq, @JsonProperty("user_name") String userName,
            @JsonProperty("start_time") Number startTime, @JsonProperty("end_time") Number endTime) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PartitionNodes(String configured) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Partition(String name, PartitionNodes nodes, List<String> flags, PartitionGroups groups) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PartitionGroups(String allowed) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record PartitionsResponse(List<SlurmError> errors, List<Partition> partitions) {
    }

    /**
     * A hold's job description, for {@code job/allocate} (immediate) and {@code job/submit} (queued): pinned to one
     * node, unlimited in time, at the top priority.
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HoldDescription(String name, String comment, String partition,
            @JsonProperty("required_nodes") List<String> requiredNodes,
            @JsonProperty("minimum_nodes") Integer minimumNodes, @JsonProperty("maximum_nodes") Integer maximumNodes,
            Integer tasks, @JsonProperty("cpus_per_task") Integer cpusPerTask,
            @JsonProperty("memory_per_node") Number memoryPerNode, @JsonProperty("time_limit") Number timeLimit,
            Number priority, @JsonProperty("tres_per_node") String tresPerNode, Boolean immediate,
            List<String> flags, List<String> environment, @JsonProperty("current_working_directory") String cwd,
            @JsonProperty("standard_output") String standardOutput,
            @JsonProperty("standard_error") String standardError) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HoldRequest(String script, HoldDescription job) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record JobsResponse(List<SlurmError> errors, List<Job> jobs) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SubmitResponse(List<SlurmError> errors, @JsonProperty("job_id") Long jobId) {
    }

    /** DELETE job/{id} answers 200 and reports per-job failures here, e.g. code 2017 for an unknown job. */
    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SignalStatus(SignalError error) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SignalError(String string, Integer code, String message) {
    }

    @RegisterForReflection
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ErrorsOnly(List<SlurmError> errors, List<SignalStatus> status) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeUpdate(String gres) {
    }

    /** {@code POST node/{name}} with a state, e.g. RESUME, or DRAIN with its reason. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record NodeStateUpdate(List<String> state, String reason) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record JobDescription(String name, String partition, @JsonProperty("current_working_directory") String cwd,
            @JsonProperty("standard_output") String standardOutput, @JsonProperty("standard_error") String standardError,
            List<String> environment, Integer tasks, @JsonProperty("cpus_per_task") Integer cpusPerTask,
            @JsonProperty("memory_per_node") Number memoryPerNode, @JsonProperty("tres_per_node") String tresPerNode,
            @JsonProperty("required_nodes") List<String> requiredNodes, Boolean hold) {
    }

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SubmitRequest(String script, JobDescription job) {
    }
}
