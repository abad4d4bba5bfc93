package dev.colocate.slurm;

import dev.colocate.config.SlurmConfig;
import dev.colocate.slurm.rest.RestSlurmControl;
import dev.colocate.slurm.scontrol.CommandRunner;
import dev.colocate.slurm.scontrol.LocalCommandRunner;
import dev.colocate.slurm.scontrol.PodExecCommandRunner;
import dev.colocate.slurm.scontrol.ScontrolNodeWriter;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@link SlurmControl} the rest of colocate uses: reads over REST, and node writes and releases over REST where
 * the server's API can write nodes (Slurm 23.11 on) or scontrol where it cannot (Slurm 22.05), as configured.
 */
@ApplicationScoped
public class CompositeSlurmControl implements SlurmControl {

    private final RestSlurmControl rest;
    private final SlurmConfig.NodeWrites nodeWrites;
    private final Supplier<SlurmNodeWriter> scontrolFactory;
    private volatile SlurmNodeWriter scontrol;

    @Inject
    public CompositeSlurmControl(RestSlurmControl rest, SlurmConfig config, Instance<KubernetesClient> kubernetes,
            SlurmMeters meters) {
        this(rest, config.nodeWrites(), () -> new ScontrolNodeWriter(runner(config, kubernetes),
                config.scontrol().command(), config.scontrol().salloc(), config.scontrol().sbatch(),
                config.requestTimeout(), meters));
    }

    /**
     * A control over {@code rest}, whose node writes and holds go to the writer {@code nodeWrites} picks; the scontrol
     * writer is made on first need.
     */
    public CompositeSlurmControl(RestSlurmControl rest, SlurmConfig.NodeWrites nodeWrites,
            Supplier<SlurmNodeWriter> scontrol) {
        this.rest = rest;
        this.nodeWrites = nodeWrites;
        this.scontrolFactory = scontrol;
    }

    /** The writer in use: decided by config, or for {@code auto} by what the server's API offers. */
    public Uni<SlurmNodeWriter> writer() {
        return switch (nodeWrites) {
            case REST -> Uni.createFrom().item(rest);
            case SCONTROL -> Uni.createFrom().item(this::scontrol);
            case AUTO -> rest.canWriteNodes().map(can -> can ? rest : scontrol());
        };
    }

    /** Who grants and queues holds: REST where the API has {@code job/allocate} (Slurm 24.05 on), else salloc. */
    public Uni<SlurmNodeWriter> holdWriter() {
        return switch (nodeWrites) {
            case REST -> Uni.createFrom().item(rest);
            case SCONTROL -> Uni.createFrom().item(this::scontrol);
            case AUTO -> rest.canAllocate().map(can -> can ? rest : scontrol());
        };
    }

    private SlurmNodeWriter scontrol() {
        SlurmNodeWriter w = scontrol;
        if (w == null) {
            w = scontrolFactory.get();
            scontrol = w;
        }
        return w;
    }

    private static CommandRunner runner(SlurmConfig config, Instance<KubernetesClient> kubernetes) {
        SlurmConfig.Scontrol sc = config.scontrol();
        return switch (sc.mode()) {
            // killed a moment after the caller stops waiting for it
            case LOCAL -> new LocalCommandRunner(sc.slurmConf(), config.requestTimeout().plusSeconds(1));
            case EXEC -> new PodExecCommandRunner(kubernetes.get(),
                    sc.namespace().orElseThrow(() -> missing("namespace")),
                    sc.pod().orElseThrow(() -> missing("pod")), sc.container());
        };
    }

    private static IllegalStateException missing(String key) {
        return new IllegalStateException("colocate.slurm.scontrol.mode=exec needs colocate.slurm.scontrol." + key);
    }

    @Override
    public Uni<ControllerPing> ping() {
        return rest.ping();
    }

    @Override
    public Uni<List<SlurmNode>> nodes() {
        return rest.nodes();
    }

    @Override
    public Uni<SlurmNode> node(String name) {
        return rest.node(name);
    }

    @Override
    public Uni<Void> setKubernetesShare(String node, long cpuCores, long memoryMb) {
        return writer().flatMap(w -> w.setKubernetesShare(node, cpuCores, memoryMb));
    }

    @Override
    public Uni<List<SlurmJob>> jobs() {
        return rest.jobs();
    }

    @Override
    public Uni<java.util.Optional<List<SlurmJob>>> jobsChangedSince(long epochSeconds) {
        return rest.jobsChangedSince(epochSeconds);
    }

    @Override
    public Uni<List<SlurmJob>> jobsOn(String node) {
        return rest.jobsOn(node);
    }

    @Override
    public Uni<List<SlurmJob>> heldJobs(String reason) {
        return rest.heldJobs(reason);
    }

    @Override
    public Uni<Void> resume(String node) {
        return writer().flatMap(w -> w.resume(node));
    }

    @Override
    public Uni<Void> drain(String node, String reason) {
        return writer().flatMap(w -> w.drain(node, reason));
    }

    @Override
    public Uni<Void> release(List<Long> jobIds) {
        return writer().flatMap(w -> w.release(jobIds));
    }

    @Override
    public Uni<Long> submit(JobSpec job) {
        return rest.submit(job);
    }

    @Override
    public Uni<Long> grantHold(HoldRequest hold) {
        return holdWriter().flatMap(w -> w.grantHold(hold));
    }

    @Override
    public Uni<Long> queueHold(HoldRequest hold) {
        return holdWriter().flatMap(w -> w.queueHold(hold));
    }

    @Override
    public Uni<String> holdsUser() {
        return holdWriter().flatMap(SlurmNodeWriter::holdsUser);
    }

    @Override
    public Uni<List<SlurmHold>> holds(String partition) {
        return rest.holds(partition);
    }

    @Override
    public Uni<SlurmPartition> partition(String name) {
        return rest.partition(name);
    }

    @Override
    public Uni<Void> cancel(long jobId) {
        return rest.cancel(jobId);
    }
}
