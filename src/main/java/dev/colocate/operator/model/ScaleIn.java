package dev.colocate.operator.model;

import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Scale-in without killing jobs: the Slurm nodes a smaller (or removed) worker group gives up are drained first, and
 * their pods go only once no job but colocate's holds runs there. Until then the cluster is rendered with those
 * nodes still in it ({@link Plan#effective()}): the StatefulSet keeps them, and slurm.conf keeps their NodeName lines.
 */
public final class ScaleIn {

    /** The reason the drained nodes show in {@code sinfo -R}. */
    public static final String REASON = "colocate: scale-in";

    private ScaleIn() {
    }

    /**
     * A worker group's StatefulSet as it runs.
     *
     * @param spec the group it was made from (kept on the StatefulSet), to render a group the spec no longer has
     */
    public record Running(int replicas, WorkerGroupSpec spec) {
    }

    /**
     * One Slurm node as Slurm sees it.
     *
     * @param jobs the active jobs there other than colocate's holds (which follow the pods, not the node)
     */
    public record NodeState(boolean drained, String reason, int jobs) {
    }

    /**
     * What to do now.
     *
     * @param effective the cluster to render: the spec, with leaving nodes that still run jobs kept
     * @param drain     leaving nodes to drain now
     * @param resume    nodes the spec keeps (again) that colocate drained for a scale-in
     * @param waiting   for each group that waits, why, e.g. {@code cpu: draining demo-worker-cpu-2 (1 job)}
     * @param leaving   every node still on its way out
     */
    public record Plan(SlurmCluster effective, List<String> drain, List<String> resume, List<String> waiting,
            List<String> leaving) {

        public boolean settled() {
            return drain.isEmpty() && resume.isEmpty() && waiting.isEmpty();
        }
    }

    /** Whether the spec asks any group for fewer nodes than it runs, or drops a group that runs nodes. */
    public static boolean shrinks(SlurmCluster cluster, Map<String, Running> running) {
        Map<String, Integer> wanted = new TreeMap<>();
        cluster.getSpec().getWorkerGroupSpecs().forEach(g -> wanted.put(g.getGroupName(), g.getReplicas()));
        return running.entrySet().stream()
                .anyMatch(e -> e.getValue().replicas() > wanted.getOrDefault(e.getKey(), 0));
    }

    /**
     * The plan for the cluster.
     *
     * @param running      the worker StatefulSets by group
     * @param slurm        Slurm's nodes by name; nodes Slurm does not know count as gone
     * @param slurmProblem why Slurm could not be asked, or null: then nothing leaves
     */
    public static Plan plan(SlurmCluster cluster, Map<String, Running> running, Map<String, NodeState> slurm,
            String slurmProblem) {
        SlurmCluster effective = Serialization.unmarshal(Serialization.asJson(cluster), SlurmCluster.class);
        List<WorkerGroupSpec> groups = new ArrayList<>(effective.getSpec().getWorkerGroupSpecs());
        List<String> drain = new ArrayList<>();
        List<String> resume = new ArrayList<>();
        List<String> waiting = new ArrayList<>();
        List<String> leaving = new ArrayList<>();
        Map<String, WorkerGroupSpec> wanted = new TreeMap<>();
        groups.forEach(g -> wanted.put(g.getGroupName(), g));
        for (WorkerGroupSpec group : groups) {
            for (int i = 0; i < group.getReplicas(); i++) {
                NodeState s = slurm.get(node(cluster, group.getGroupName(), i));
                if (s != null && s.drained() && REASON.equals(s.reason())) {
                    resume.add(node(cluster, group.getGroupName(), i));
                }
            }
        }
        for (Map.Entry<String, Running> e : running.entrySet()) {
            String name = e.getKey();
            WorkerGroupSpec group = wanted.get(name);
            int want = group == null ? 0 : group.getReplicas();
            int have = e.getValue().replicas();
            if (have <= want) {
                continue;
            }
            int keep = want;
            List<String> busy = new ArrayList<>();
            for (int i = have - 1; i >= want; i--) {
                String node = node(cluster, name, i);
                NodeState s = slurm.get(node);
                boolean gone = slurmProblem == null && (s == null || (s.drained() && s.jobs() == 0));
                if (slurmProblem == null && s != null && !s.drained()) {
                    drain.add(node);
                }
                if (!gone) {
                    keep = Math.max(keep, i + 1);
                    busy.add(0, node + (s == null ? "" : " (" + s.jobs() + (s.jobs() == 1 ? " job)" : " jobs)")));
                }
                leaving.add(node);
            }
            if (keep > want) {
                waiting.add(name + ": " + (slurmProblem != null ? "cannot drain " + String.join(", ", busy)
                        + " before removing them: " + slurmProblem : "draining " + String.join(", ", busy)));
                if (group != null) {
                    group.setReplicas(keep);
                } else if (e.getValue().spec() != null) {
                    WorkerGroupSpec kept = Serialization.unmarshal(Serialization.asJson(e.getValue().spec()),
                            WorkerGroupSpec.class);
                    kept.setReplicas(keep);
                    groups.add(kept);
                }
            }
        }
        effective.getSpec().setWorkerGroupSpecs(groups);
        return new Plan(effective, List.copyOf(drain), List.copyOf(resume), List.copyOf(waiting),
                List.copyOf(leaving));
    }

    private static String node(SlurmCluster cluster, String group, int index) {
        return cluster.workerName(group) + "-" + index;
    }
}
