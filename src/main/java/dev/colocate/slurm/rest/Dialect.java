package dev.colocate.slurm.rest;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.slurm.ControllerPing;
import dev.colocate.slurm.JobSpec;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
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

    Object submitRequest(JobSpec job);

    /** The body of {@code POST node/{name}} that sets the node's GRES string. */
    Object nodeUpdate(String gres);

    /** The body of {@code POST node/{name}} that resumes a drained node. */
    Object nodeResume();

    /** The body of {@code POST job/{id}} that releases a held job. */
    Object release();

    List<SlurmError> errors(JsonNode body);

    /** Whether a failed answer means Slurm refused the token, as this version reports that. */
    boolean isAuthFailure(int status, SlurmError error);
}
