package dev.colocate.slurm.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.slurm.ControllerPing;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.JobSpec;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmPartition;
import java.util.List;

/** How one slurmrestd API version spells what colocate reads and writes. */
public interface Dialect {

    /** The path segment, e.g. {@code v0.0.42}. */
    String version();

    /** Whether this version has {@code POST node/{name}}; v0.0.38 (Slurm 22.05) answers it with 405. */
    boolean canWriteNodes();

    ControllerPing ping(JsonNode ping, JsonNode diag);

    List<SlurmNode> nodes(JsonNode body);

    List<SlurmJob> jobs(JsonNode body);

    long submittedJobId(JsonNode body);

    List<SlurmPartition> partitions(JsonNode body);

    /** Whether this version has {@code POST job/allocate}, an allocation without steps (v0.0.41+, Slurm 24.05). */
    boolean canAllocate();

    /** The body of {@code POST job/allocate} that grants a hold at once or refuses it. */
    Object allocateRequest(HoldRequest hold);

    /** The body of {@code POST job/submit} of a hold that waits for room. */
    Object holdSubmitRequest(HoldRequest hold);

    Object submitRequest(JobSpec job);

    /** The body of {@code POST node/{name}} that sets the node's GRES string. */
    Object nodeUpdate(String gres);

    /** The body of {@code POST node/{name}} that resumes a drained node. */
    Object nodeResume();

    /** The body of {@code POST node/{name}} that drains a node with a reason. */
    Object nodeDrain(String reason);

    /** The body of {@code POST job/{id}} that releases a held job. */
    Object release();

    List<SlurmError> errors(JsonNode body);

    /** Whether a failed answer means Slurm refused the token, as this version reports that. */
    boolean isAuthFailure(int status, SlurmError error);
}
