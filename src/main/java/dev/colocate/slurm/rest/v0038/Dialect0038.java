package dev.colocate.slurm.rest.v0038;

import static dev.colocate.slurm.rest.JsonBodies.orEmpty;
import static dev.colocate.slurm.rest.JsonBodies.orZero;
import static dev.colocate.slurm.rest.JsonBodies.read;

import com.fasterxml.jackson.databind.JsonNode;
import dev.colocate.slurm.ControllerPing;
import dev.colocate.slurm.Gres;
import dev.colocate.slurm.HoldRequest;
import dev.colocate.slurm.Hostlist;
import dev.colocate.slurm.JobSpec;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmPartition;
import dev.colocate.slurm.rest.Dialect;
import dev.colocate.slurm.rest.JsonBodies;
import dev.colocate.slurm.rest.SlurmError;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** slurmrestd v0.0.38, served by Slurm 22.05. It has no node write: Slurm answers POST node/{name} with 405. */
public final class Dialect0038 implements Dialect {

    @Override
    public String version() {
        return "v0.0.38";
    }

    @Override
    public boolean canWriteNodes() {
        return false;
    }

    @Override
    public ControllerPing ping(JsonNode ping, JsonNode diag) {
        V0038.PingResponse p = read(ping, V0038.PingResponse.class);
        V0038.DiagResponse d = read(diag, V0038.DiagResponse.class);
        boolean up = orEmpty(p.pings()).stream().anyMatch(x -> "UP".equalsIgnoreCase(x.ping()));
        String release = p.meta() == null || p.meta().slurm() == null ? "" : p.meta().slurm().release();
        Instant started = d.statistics() == null ? Instant.EPOCH
                : Instant.ofEpochSecond(orZero(d.statistics().reqTimeStart()));
        return new ControllerPing(up, release, started);
    }

    @Override
    public List<SlurmNode> nodes(JsonNode body) {
        return orEmpty(read(body, V0038.NodesResponse.class).nodes()).stream()
                .map(n -> new SlurmNode(n.name(), JsonBodies.states(n.state(), n.stateFlags()), orZero(n.cpus()),
                        orZero(n.realMemory()), orZero(n.allocCpus()), orZero(n.allocMemory()), Gres.parse(n.gres()),
                        Gres.parse(n.gresUsed()), n.reason()))
                .toList();
    }

    @Override
    public List<SlurmJob> jobs(JsonNode body) {
        return orEmpty(read(body, V0038.JobsResponse.class).jobs()).stream()
                .map(j -> new SlurmJob(orZero(j.jobId()), j.name(), j.jobState().toUpperCase(Locale.ROOT),
                        j.stateReason(), nodesOf(j.nodes(), j.requiredNodes()), j.tresPerNode(),
                        orZero(j.priority()), j.partition(), j.comment(), JsonBodies.tres(j.tresAlloc(), j.tresReq()), j.userName(), orZero(j.startTime()),
                        orZero(j.endTime())))
                .toList();
    }

    @Override
    public List<SlurmPartition> partitions(JsonNode body) {
        return orEmpty(read(body, V0038.PartitionsResponse.class).partitions()).stream()
                .map(p -> new SlurmPartition(p.name(), java.util.Set.copyOf(Hostlist.expand(p.nodes())),
                        SlurmPartition.access(p.flags(), p.allowedGroups())))
                .toList();
    }

    @Override
    public boolean canAllocate() {
        return false;
    }

    @Override
    public Object allocateRequest(HoldRequest hold) {
        throw new UnsupportedOperationException("slurmrestd v0.0.38 (Slurm 22.05) has no job/allocate; use salloc");
    }

    @Override
    public Object holdSubmitRequest(HoldRequest hold) {
        throw new UnsupportedOperationException("slurmrestd v0.0.38 (Slurm 22.05) cannot pin a job; use sbatch");
    }

    /** A pending job has no nodes yet; the nodes it is pinned to say where it waits. */
    static String nodesOf(String nodes, String required) {
        return nodes == null || nodes.isBlank() ? (required == null ? "" : required) : nodes;
    }

    @Override
    public long submittedJobId(JsonNode body) {
        return orZero(read(body, V0038.SubmitResponse.class).jobId());
    }

    @Override
    public Object submitRequest(JobSpec job) {
        if (job.node().isPresent()) {
            throw new IllegalArgumentException("slurmrestd v0.0.38 cannot pin a job to a node; submit it with "
                    + "sbatch -w instead");
        }
        return new V0038.SubmitRequest(job.script(), new V0038.JobProperties(job.name(), null, JobSpec.WORK_DIR,
                job.output(), job.output(), Map.of("PATH", "/usr/bin:/bin"), 1, job.cpusPerTask(), job.memoryMb(), job.gres().orElse(null),
                null));
    }

    @Override
    public Object nodeUpdate(String gres) {
        throw new UnsupportedOperationException("slurmrestd v0.0.38 (Slurm 22.05) cannot update nodes");
    }

    @Override
    public Object nodeResume() {
        throw new UnsupportedOperationException("slurmrestd v0.0.38 (Slurm 22.05) cannot update nodes");
    }

    @Override
    public Object nodeDrain(String reason) {
        throw new UnsupportedOperationException("slurmrestd v0.0.38 (Slurm 22.05) cannot update nodes");
    }

    @Override
    public Object release() {
        return new V0038.JobProperties(null, null, null, null, null, null, null, null, null, null, false);
    }

    /**
     * slurmrestd 22.05 passes the token to slurmctld, and a token slurmctld cannot verify (wrong key, expired) comes
     * back as HTTP 500 with the bare "Unspecified error" (-1); the reason is only in slurmctld's log.
     */
    @Override
    public boolean isAuthFailure(int status, SlurmError error) {
        return status == 500 && error != null && error.number() == -1;
    }

    @Override
    public List<SlurmError> errors(JsonNode body) {
        return orEmpty(read(body, V0038.ErrorsOnly.class).errors());
    }
}
