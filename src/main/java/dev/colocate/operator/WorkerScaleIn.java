package dev.colocate.operator;

import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import dev.colocate.config.CopilotConfig;
import dev.colocate.config.SlurmConfig;
import dev.colocate.events.EventRecorder;
import dev.colocate.operator.model.ScaleIn;
import dev.colocate.operator.model.SlurmFiles;
import dev.colocate.slurm.ClusterSlurms;
import dev.colocate.slurm.SlurmControl;
import dev.colocate.slurm.SlurmHold;
import dev.colocate.slurm.SlurmJob;
import dev.colocate.slurm.SlurmMeters;
import dev.colocate.slurm.SlurmNode;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Carries out {@link ScaleIn} against a SlurmCluster's own Slurm: asks it about the nodes on their way out, drains
 * them, and resumes the ones a scale-in drained that the spec keeps after all. Slurm is asked only while a group
 * shrinks or nodes are still leaving; otherwise the plan is the spec itself.
 */
@ApplicationScoped
public class WorkerScaleIn {

    private static final Logger LOG = Logger.getLogger(WorkerScaleIn.class);

    @Inject
    KubernetesClient client;

    @Inject
    SlurmConfig slurmConfig;

    @Inject
    CopilotConfig copilotConfig;

    @Inject
    SlurmMeters meters;

    @Inject
    EventRecorder events;

    private final Map<String, ClusterSlurms.Connection> connections = new ConcurrentHashMap<>();

    /** The worker StatefulSets by group, with the group each was made from. */
    static Map<String, ScaleIn.Running> running(Map<String, StatefulSet> workersByGroup) {
        Map<String, ScaleIn.Running> running = new HashMap<>();
        workersByGroup.forEach((group, sts) -> {
            String json = sts.getMetadata().getAnnotations() == null ? null
                    : sts.getMetadata().getAnnotations().get(Labels.WORKER_GROUP_SPEC);
            WorkerGroupSpec spec = json == null ? null : Serialization.unmarshal(json, WorkerGroupSpec.class);
            Integer replicas = sts.getSpec() == null ? null : sts.getSpec().getReplicas();
            running.put(group, new ScaleIn.Running(replicas == null ? 1 : replicas, spec));
        });
        return running;
    }

    /** The plan for this reconcile, with its drains and resumes done. Blocks on Slurm, within its timeouts. */
    ScaleIn.Plan apply(SlurmCluster cluster, Map<String, ScaleIn.Running> running) {
        boolean leaving = cluster.getStatus() != null && !cluster.getStatus().getLeavingWorkers().isEmpty();
        if (!ScaleIn.shrinks(cluster, running) && !leaving) {
            return ScaleIn.plan(cluster, running, Map.of(), null);
        }
        String key = cluster.getMetadata().getNamespace() + "/" + cluster.getMetadata().getName();
        try {
            SlurmControl slurm = connection(key, cluster);
            Duration timeout = slurmConfig.requestTimeout().multipliedBy(2);
            Map<String, ScaleIn.NodeState> states = new HashMap<>();
            String prefix = cluster.getMetadata().getName() + "-worker-";
            List<SlurmNode> workers = slurm.nodes().await().atMost(timeout).stream()
                    .filter(n -> n.name().startsWith(prefix)).toList();
            // one listing of the jobs for every drained node; colocate's holds follow the pods, not the node, but a
            // look-alike of another user is a job like any other
            boolean anyDrained = workers.stream().anyMatch(n -> n.is("DRAIN"));
            String owner = anyDrained ? slurm.holdsUser().await().atMost(timeout) : null;
            List<SlurmJob> jobs = !anyDrained ? List.of() : slurm.jobs().await().atMost(timeout).stream()
                    .filter(j -> SlurmHold.of(j, copilotConfig.holdsPartition())
                            .filter(h -> h.user().equals(owner)).isEmpty()).toList();
            for (SlurmNode n : workers) {
                boolean drained = n.is("DRAIN");
                int active = drained ? (int) jobs.stream().filter(j -> j.activeOn(n.name())).count() : 0;
                states.put(n.name(), new ScaleIn.NodeState(drained, n.reason(), active));
            }
            ScaleIn.Plan plan = ScaleIn.plan(cluster, running, states, null);
            for (String node : plan.drain()) {
                slurm.drain(node, ScaleIn.REASON).await().atMost(timeout);
            }
            if (!plan.drain().isEmpty()) {
                events.record(cluster, EventRecorder.Reason.ScaleInDraining, "drained " + String.join(", ",
                        plan.drain()) + " (reason '" + ScaleIn.REASON + "'): their pods go once no job runs there");
            }
            for (String node : plan.resume()) {
                slurm.resume(node).await().atMost(timeout);
            }
            if (!plan.resume().isEmpty()) {
                events.record(cluster, EventRecorder.Reason.ScaleInUndone, "resumed " + String.join(", ",
                        plan.resume()) + ": the spec keeps them again");
            }
            if (plan.settled() && plan.leaving().isEmpty()) {
                // nothing left to drain: the connection is made again at the next scale-in
                ClusterSlurms.Connection done = connections.remove(key);
                if (done != null) {
                    done.close().run();
                }
            }
            return plan;
        } catch (RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            LOG.debugf("scale-in of %s waits: %s", key, why);
            return ScaleIn.plan(cluster, running, Map.of(), "Slurm cannot be asked (" + why + ")");
        }
    }

    private SlurmControl connection(String key, SlurmCluster cluster) {
        ClusterSlurms.Connection previous = connections.get(key);
        ClusterSlurms.Connection c = ClusterSlurms.connect(client, cluster, slurmConfig, meters, previous);
        if (c != previous) {
            if (previous != null) {
                previous.close().run();
            }
            connections.put(key, c);
        }
        return c.slurm();
    }
}
