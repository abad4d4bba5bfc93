package dev.colocate.slurm.rest.v004x;

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
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmNode;
import dev.colocate.slurm.SlurmPartition;
import dev.colocate.slurm.rest.Dialect;
import dev.colocate.slurm.rest.JsonBodies;
import dev.colocate.slurm.rest.SlurmError;
import java.time.Instant;
import java.util.List;

/** slurmrestd v0.0.40 to v0.0.45 (Slurm 23.11 to 26.05), which update nodes with POST node/{name}. */
public final class Dialect004x implements Dialect {

    private final String version;

    public Dialect004x(String version) {
        this.version = version;
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public boolean canWriteNodes() {
        return true;
    }

    @Override
    public ControllerPing ping(JsonNode ping, JsonNode diag) {
        V004x.PingResponse p = read(ping, V004x.PingResponse.class);
        V004x.DiagResponse d = read(diag, V004x.DiagResponse.class);
        boolean up = orEmpty(p.pings()).stream()
                .anyMatch(x -> Boolean.TRUE.equals(x.responding()) || "UP".equalsIgnoreCase(x.pinged()));
        String release = p.meta() == null || p.meta().slurm() == null ? "" : p.meta().slurm().release();
        Instant started = d.statistics() == null || d.statistics().reqTimeStart() == null ? Instant.EPOCH
                : Instant.ofEpochSecond(d.statistics().reqTimeStart().orZero());
        return new ControllerPing(up, release, started);
    }

    @Override
    public List<SlurmNode> nodes(JsonNode body) {
        return orEmpty(read(body, V004x.NodesResponse.class).nodes()).stream()
                .map(n -> new SlurmNode(n.name(), JsonBodies.states(null, n.state()), orZero(n.cpus()),
                        orZero(n.realMemory()), orZero(n.allocCpus()), orZero(n.allocMemory()), Gres.parse(n.gres()),
                        Gres.parse(n.gresUsed()), n.reason()))
                .toList();
    }

    @Override
    public List<SlurmJob> jobs(JsonNode body) {
        return orEmpty(read(body, V004x.JobsResponse.class).jobs()).stream()
                .map(j -> new SlurmJob(orZero(j.jobId()), j.name(),
                        orEmpty(j.jobState()).isEmpty() ? "" : j.jobState().get(0), j.stateReason(),
                        j.nodes() == null || j.nodes().isBlank() ? nullToEmpty(j.requiredNodes()) : j.nodes(),
                        j.tresPerNode(), j.priority() == null ? 0 : j.priority().orZero(), j.partition(),
                        j.comment(), JsonBodies.tres(j.tresAlloc(), j.tresReq()), j.userName(),
                        j.startTime() == null ? 0 : j.startTime().orZero(),
                        j.endTime() == null ? 0 : j.endTime().orZero()))
                .toList();
    }

    @Override
    public List<SlurmPartition> partitions(JsonNode body) {
        return orEmpty(read(body, V004x.PartitionsResponse.class).partitions()).stream()
                .map(p -> new SlurmPartition(p.name(), java.util.Set.copyOf(Hostlist.expand(
                        p.nodes() == null ? "" : p.nodes().configured())),
                        SlurmPartition.access(p.flags(), p.groups() == null ? null : p.groups().allowed())))
                .toList();
    }

    /** {@code job/allocate} exists from v0.0.41 (Slurm 24.05); v0.0.40 (23.11) has none. */
    @Override
    public boolean canAllocate() {
        return !"v0.0.40".equals(version);
    }

    @Override
    public Object allocateRequest(HoldRequest hold) {
        return new V004x.HoldRequest(null, holdDescription(hold, true));
    }

    @Override
    public Object holdSubmitRequest(HoldRequest hold) {
        return new V004x.HoldRequest(externalHolds() ? null : "#!/bin/sh\nexec sleep infinity\n",
                holdDescription(hold, null));
    }

    /**
     * Whether holds are external jobs ({@code flags: [EXTERNAL_JOB]}): v0.0.45, which only Slurm 26.05 and later
     * serve. An external job is an allocation that Slurm counts, schedules, keeps across restarts and cancels like any
     * other, but never launches: a queued hold that starts runs no batch script (no slurmstepd, no {@code sleep}) on
     * the worker, so the hold no longer depends on the node being able to launch anything. Slurm 26.05 refuses a
     * script with the flag ("Invalid configuration for external job"). Slurm 24.11 (v0.0.42 at most) answers the flag
     * with an error yet creates the job, so it must never be sent there.
     */
    public boolean externalHolds() {
        return "v0.0.45".equals(version);
    }

    /**
     * The top priority (root or SlurmUser may set it): without it an immediate allocation fails whenever a pending
     * job of higher priority overlaps the node. Slurm's own top, as {@code --priority=TOP} sets it, is NO_VAL - 2 (NO_VAL - 1 is taken as "not set").
     */
    static final long TOP_PRIORITY = 4_294_967_293L;

    private V004x.HoldDescription holdDescription(HoldRequest hold, Boolean immediate) {
        return new V004x.HoldDescription(SlurmHold.NAME, hold.comment(), hold.partition(), List.of(hold.node()), 1, 1,
                1, (int) hold.cpus(), V004x.Number.of(Math.max(1, hold.memoryMb())), V004x.Number.unlimited(),
                V004x.Number.of(TOP_PRIORITY),
                hold.gres() == null ? null : "gres/" + hold.gres().replace(",", ",gres/"), immediate,
                externalHolds() ? List.of("EXTERNAL_JOB") : null,
                List.of("PATH=/usr/bin:/bin"), JobSpec.WORK_DIR, "/dev/null", "/dev/null");
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    @Override
    public long submittedJobId(JsonNode body) {
        return orZero(read(body, V004x.SubmitResponse.class).jobId());
    }

    @Override
    public Object submitRequest(JobSpec job) {
        return new V004x.SubmitRequest(job.script(), new V004x.JobDescription(job.name(), null, JobSpec.WORK_DIR,
                job.output(), job.output(), List.of("PATH=/usr/bin:/bin"), 1, job.cpusPerTask(), V004x.Number.of(job.memoryMb()),
                job.gres().map(g -> "gres/" + g.replace(",", ",gres/")).orElse(null),
                job.node().map(List::of).orElse(null), null));
    }

    @Override
    public Object nodeUpdate(String gres) {
        return new V004x.NodeUpdate(gres);
    }

    @Override
    public Object nodeResume() {
        return new V004x.NodeStateUpdate(List.of("RESUME"), null);
    }

    @Override
    public Object nodeDrain(String reason) {
        return new V004x.NodeStateUpdate(List.of("DRAIN"), reason);
    }

    @Override
    public Object release() {
        return new V004x.JobDescription(null, null, null, null, null, null, null, null, null, null, null, false);
    }

    /** Slurm 24.11 answers a refused token with HTTP 511 and SLURM_PROTOCOL_AUTHENTICATION_ERROR (1007). */
    @Override
    public boolean isAuthFailure(int status, SlurmError error) {
        return status == 511 || error != null && error.number() == 1007;
    }

    @Override
    public List<SlurmError> errors(JsonNode body) {
        V004x.ErrorsOnly e = read(body, V004x.ErrorsOnly.class);
        List<SlurmError> all = new java.util.ArrayList<>(orEmpty(e.errors()));
        orEmpty(e.status()).stream()
                .filter(st -> st.error() != null && st.error().code() != null && st.error().code() != 0)
                .map(st -> new SlurmError(st.error().string(), st.error().code(), st.error().message(), "status"))
                .forEach(all::add);
        return all;
    }
}
