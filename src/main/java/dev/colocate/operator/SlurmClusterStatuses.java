package dev.colocate.operator;

import dev.colocate.api.Labels;
import dev.colocate.operator.model.ScaleIn;
import dev.colocate.api.Conditions;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.SlurmClusterStatus;
import dev.colocate.api.WorkerGroupSpec;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A SlurmCluster's status, computed from the problems of its spec and what its workloads report. */
final class SlurmClusterStatuses {

    static final String READY = "Ready";
    static final String CONFIG_VALID = "ConfigValid";
    static final String CONTROLLER_READY = "ControllerReady";
    static final String WORKERS_READY = "WorkersReady";
    static final String ACCOUNTING_READY = "AccountingReady";
    static final String REST_API_READY = "RestApiReady";

    /** What the reconcile saw: the spec's problems and the workloads, by name (absent when not created). */
    record Observed(List<String> problems, StatefulSet controller, Map<String, StatefulSet> workersByGroup,
            Deployment restApi, Deployment accounting, ScaleIn.Plan scaleIn, Map<String, String> desiredHashes) {

        /** Whether the StatefulSet's pods are to run the config this reconcile rendered (true when unknown). */
        boolean current(StatefulSet sts) {
            String name = sts.getMetadata().getName();
            String want = desiredHashes == null || name == null ? null : desiredHashes.get(name);
            var template = sts.getSpec() == null || sts.getSpec().getTemplate() == null ? null
                    : sts.getSpec().getTemplate().getMetadata();
            return want == null || (template != null && template.getAnnotations() != null
                    && want.equals(template.getAnnotations().get(Labels.CONFIG_HASH)));
        }
    }

    private SlurmClusterStatuses() {
    }

    static SlurmClusterStatus compute(SlurmCluster cluster, Observed seen, Instant now) {
        Long generation = cluster.getMetadata().getGeneration();
        List<Condition> c = cluster.getStatus() == null ? new ArrayList<>() : cluster.getStatus().getConditions();
        List<String> notReady = new ArrayList<>();

        boolean valid = seen.problems().isEmpty();
        c = Conditions.with(c, CONFIG_VALID, valid, valid ? "Valid" : "InvalidSpec",
                valid ? "the spec renders a usable Slurm configuration"
                        : String.join("; ", seen.problems()) + " (the cluster is left as it was)",
                generation, now);
        track(notReady, CONFIG_VALID, valid);

        boolean controller = seen.controller() != null && Workloads.rolledOut(seen.controller())
                && seen.current(seen.controller());
        c = Conditions.with(c, CONTROLLER_READY, controller, reason(seen.controller() != null, controller),
                "slurmctld " + (seen.controller() == null ? "not created" : Workloads.ready(seen.controller())
                        + "/1 ready" + (controller ? "" : ", rolling out")), generation, now);
        track(notReady, CONTROLLER_READY, controller);

        Map<String, Integer> available = new TreeMap<>();
        int ready = 0;
        int desired = 0;
        boolean workers = true;
        List<String> groups = new ArrayList<>();
        for (WorkerGroupSpec g : cluster.getSpec().getWorkerGroupSpecs()) {
            StatefulSet sts = seen.workersByGroup().get(g.getGroupName());
            int r = sts == null ? 0 : Workloads.ready(sts);
            available.put(g.getGroupName(), r);
            ready += r;
            desired += Math.max(g.getReplicas(), 0);
            boolean done = sts != null && Workloads.rolledOut(sts) && seen.current(sts)
                    && (sts.getSpec().getReplicas() == null || sts.getSpec().getReplicas() == g.getReplicas());
            workers &= done;
            groups.add(g.getGroupName() + " " + r + "/" + g.getReplicas() + (done ? "" : " rolling out"));
        }
        List<String> waiting = seen.scaleIn() == null ? List.of() : seen.scaleIn().waiting();
        workers &= waiting.isEmpty();
        c = Conditions.with(c, WORKERS_READY, workers, workers ? "RolledOut" : waiting.isEmpty() ? "Progressing"
                : "ScalingIn", (groups.isEmpty() ? "no worker groups" : String.join(", ", groups))
                + (waiting.isEmpty() ? "" : "; scale-in " + String.join("; ", waiting)), generation, now);
        track(notReady, WORKERS_READY, workers);

        boolean rest = seen.restApi() != null && Workloads.rolledOut(seen.restApi());
        c = Conditions.with(c, REST_API_READY, rest, reason(seen.restApi() != null, rest),
                "slurmrestd " + (rest ? "available" : seen.restApi() == null ? "not created" : "not available yet"),
                generation, now);
        track(notReady, REST_API_READY, rest);

        boolean accountingOn = cluster.getSpec().getAccounting() != null;
        boolean accounting = !accountingOn || (seen.accounting() != null && Workloads.rolledOut(seen.accounting()));
        c = Conditions.with(c, ACCOUNTING_READY, accounting,
                accountingOn ? reason(seen.accounting() != null, accounting) : "Disabled",
                accountingOn ? "slurmdbd " + (accounting ? "available" : "not available yet")
                        : "no spec.accounting: slurmdbd does not run", generation, now);
        track(notReady, ACCOUNTING_READY, accounting);

        c = Conditions.with(c, READY, notReady.isEmpty(), notReady.isEmpty() ? "Ready" : notReady.get(0),
                notReady.isEmpty() ? "every component runs its current spec" : "not ready: "
                        + String.join(", ", notReady), generation, now);

        SlurmClusterStatus status = new SlurmClusterStatus();
        status.setConditions(c);
        status.setAvailableWorkers(available);
        status.setWorkers(ready + "/" + desired);
        status.setLeavingWorkers(seen.scaleIn() == null
                ? (cluster.getStatus() == null ? List.of() : cluster.getStatus().getLeavingWorkers())
                : seen.scaleIn().leaving());
        status.setObservedGeneration(generation);
        return status;
    }

    private static void track(List<String> notReady, String type, boolean ok) {
        if (!ok) {
            notReady.add(type);
        }
    }

    private static String reason(boolean exists, boolean ready) {
        return ready ? "RolledOut" : exists ? "Progressing" : "NotCreated";
    }
}
