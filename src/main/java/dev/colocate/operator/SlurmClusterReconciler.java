package dev.colocate.operator;

import dev.colocate.api.Conditions;
import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.Labels;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.SlurmClusterStatus;
import dev.colocate.config.CopilotConfig;
import dev.colocate.config.OperatorConfig;
import dev.colocate.events.EventRecorder;
import dev.colocate.operator.model.JwtKeys;
import dev.colocate.operator.model.OperatorDefaults;
import dev.colocate.operator.model.ScaleIn;
import dev.colocate.operator.model.SlurmFiles;
import dev.colocate.operator.model.SlurmPaths;
import dev.colocate.operator.model.SlurmStatefulSets;
import dev.colocate.operator.model.SpecProblems;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Workflow;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Reconciles a SlurmCluster: renders and checks its configuration, runs the workflow of its dependents only when
 * the spec is usable (an unusable one is reported in ConfigValid and leaves every running pod alone), and reports
 * what the dependents show.
 */
@Workflow(explicitInvocation = true, dependents = {
    @Dependent(name = "config", type = SlurmConfigMapDependent.class),
    @Dependent(name = "munge-key", type = MungeSecretDependent.class,
            reconcilePrecondition = GeneratedKeySecretDependent.Generated.class),
    @Dependent(name = "jwt-key", type = JwtSecretDependent.class,
            reconcilePrecondition = GeneratedKeySecretDependent.Generated.class),
    @Dependent(name = "controller-service", type = ControllerServiceDependent.class),
    @Dependent(name = "workers-service", type = WorkersServiceDependent.class),
    @Dependent(name = "rest-api-service", type = RestApiServiceDependent.class),
    @Dependent(name = "accounting-service", type = AccountingServiceDependent.class,
            reconcilePrecondition = AccountingDependent.Enabled.class),
    @Dependent(name = "accounting", type = AccountingDependent.class, dependsOn = "config",
            reconcilePrecondition = AccountingDependent.Enabled.class),
    @Dependent(name = "shared-state", type = SharedStateClaimDependent.class,
            reconcilePrecondition = SharedStateClaimDependent.Backup.class),
    @Dependent(name = "controller", type = ControllerDependent.class, dependsOn = "config",
            readyPostcondition = ControllerDependent.RolledOut.class),
    @Dependent(name = "workers", type = WorkersDependent.class, dependsOn = "controller"),
    @Dependent(name = "rest-api", type = RestApiDependent.class, dependsOn = "controller"),
})
@ControllerConfiguration(name = SlurmClusterReconciler.NAME)
public class SlurmClusterReconciler implements Reconciler<SlurmCluster> {

    static final String NAME = "slurmcluster";
    private static final Logger LOG = Logger.getLogger(SlurmClusterReconciler.class);
    private static final Duration RECHECK_INVALID = Duration.ofSeconds(5);
    private static final Duration RECHECK_SCALE_IN = Duration.ofSeconds(10);

    @Inject
    OperatorConfig config;

    /** For the holds partition's name, which the copilot and the rendered slurm.conf must share. */
    @Inject
    CopilotConfig copilotConfig;

    @Inject
    EventRecorder events;

    @Inject
    WorkerScaleIn scaleIns;

    @Override
    public UpdateControl<SlurmCluster> reconcile(SlurmCluster cluster, Context<SlurmCluster> context) {
        OperatorDefaults defaults = OperatorDefaults.of(config);
        List<String> problems = new ArrayList<>(missingSecrets(cluster, context.getClient()));
        String jwks = jwks(cluster, context.getClient(), problems);
        SlurmFiles.Rendered files = SlurmFiles.render(cluster, JobSubmitScript.text(), jwks,
                copilotConfig.holdsPartition());
        problems.addAll(0, SpecProblems.of(cluster, defaults));
        problems.addAll(files.problems());
        SlurmClusterStatuses.Observed before = observe(cluster, context, problems, null, Map.of());
        if (problems.isEmpty()) {
            String stateChange = SlurmStatefulSets.stateChange(before.controller(),
                    SlurmStatefulSets.controller(cluster, files, defaults));
            if (stateChange != null) {
                problems.add(stateChange);
            }
        }
        ScaleIn.Plan scaleIn = null;
        Map<String, String> hashes = Map.of();
        if (problems.isEmpty()) {
            scaleIn = scaleIns.apply(cluster, WorkerScaleIn.running(before.workersByGroup()));
            SlurmFiles.Rendered effective = scaleIn.effective().getSpec().getWorkerGroupSpecs()
                    .equals(cluster.getSpec().getWorkerGroupSpecs()) ? files
                    : SlurmFiles.render(scaleIn.effective(), JobSubmitScript.text(), jwks,
                            copilotConfig.holdsPartition());
            new Inputs(scaleIn.effective(), effective, defaults).putInto(context);
            context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow();
            hashes = desiredHashes(scaleIn.effective(), effective, defaults);
        }
        SlurmClusterStatus status = SlurmClusterStatuses.compute(cluster, observe(cluster, context, problems,
                scaleIn, hashes), Instant.now());
        reportNewProblem(cluster, status);
        UpdateControl<SlurmCluster> control = patchIfChanged(cluster, status, context.getClient());
        // A Secret the spec names is not watched (the informers see only what the operator made), so a cluster
        // that waits for one looks again soon.
        // A drain waits on Slurm's jobs, which send no events either.
        return !problems.isEmpty() ? control.rescheduleAfter(RECHECK_INVALID)
                : !scaleIn.settled() ? control.rescheduleAfter(RECHECK_SCALE_IN) : control;
    }

    @Override
    public ErrorStatusUpdateControl<SlurmCluster> updateErrorStatus(SlurmCluster cluster,
            Context<SlurmCluster> context, Exception e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        events.record(cluster, EventRecorder.Reason.ReconcileFailed, message);
        SlurmClusterStatus status = cluster.getStatus() == null ? new SlurmClusterStatus() : cluster.getStatus();
        SlurmClusterStatus failed = new SlurmClusterStatus();
        failed.setWorkers(status.getWorkers());
        failed.setAvailableWorkers(status.getAvailableWorkers());
        failed.setObservedGeneration(status.getObservedGeneration());
        failed.setConditions(Conditions.with(status.getConditions(), SlurmClusterStatuses.READY, false,
                "ReconcileFailed", message, cluster.getMetadata().getGeneration(), Instant.now()));
        try {
            writeStatus(cluster, failed, context.getClient());
        } catch (RuntimeException writeFailed) {
            LOG.warnf("could not report the failed reconcile of %s/%s: %s", cluster.getMetadata().getNamespace(),
                    cluster.getMetadata().getName(), writeFailed.getMessage());
        }
        return ErrorStatusUpdateControl.noStatusUpdate();
    }

    /**
     * The public JWKS of the cluster's RS256 key when it signs RS256, else null. A generated Secret that does not
     * exist yet gives none (its creation triggers the next reconcile); a key that is not RSA is a problem.
     */
    private static String jwks(SlurmCluster cluster, KubernetesClient client, List<String> problems) {
        if (!cluster.getSpec().getJwtConfigs().rs256()) {
            return null;
        }
        String ns = cluster.getMetadata().getNamespace();
        Secret secret = client.secrets().inNamespace(ns).withName(cluster.jwtSecretName()).get();
        String pem = secret == null || secret.getData() == null ? null
                : secret.getData().get(SlurmPaths.JWT_RS256_KEY_FILE);
        if (pem == null) {
            if (secret != null && cluster.jwtSecretName().equals(cluster.generatedJwtSecretName())) {
                problems.add("spec.jwtConfigs.algorithm: RS256 needs key " + SlurmPaths.JWT_RS256_KEY_FILE
                        + ", which Secret " + ns + "/" + cluster.jwtSecretName() + " was generated without (before "
                        + "RS256 existed); delete that Secret to have a new one made (every daemon restarts)");
            }
            return null;
        }
        try {
            return JwtKeys.jwks(JwtKeys.privateKey(new String(Base64.getDecoder().decode(pem),
                    StandardCharsets.US_ASCII), "spec.jwtConfigs: key " + SlurmPaths.JWT_RS256_KEY_FILE
                    + " of Secret " + ns + "/" + cluster.jwtSecretName()));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /** Secrets the spec names that are not there, or lack their key; the operator never creates those. */
    private static List<String> missingSecrets(SlurmCluster cluster, KubernetesClient client) {
        List<String> problems = new ArrayList<>();
        String ns = cluster.getMetadata().getNamespace();
        if (!cluster.mungeSecretName().equals(cluster.generatedMungeSecretName())) {
            requireKey(problems, client, ns, "spec.mungeConfigs.secretName", cluster.mungeSecretName(),
                    SlurmPaths.MUNGE_KEY_FILE);
        }
        if (!cluster.jwtSecretName().equals(cluster.generatedJwtSecretName())) {
            // one read of the Secret, and one "does not exist" however many keys it lacks
            requireKey(problems, client, ns, "spec.jwtConfigs.secretName", cluster.jwtSecretName(),
                    cluster.getSpec().getJwtConfigs().rs256()
                            ? new String[] {SlurmPaths.JWT_KEY_FILE, SlurmPaths.JWT_RS256_KEY_FILE}
                            : new String[] {SlurmPaths.JWT_KEY_FILE});
        }
        password(problems, client, ns, "spec.accounting", cluster.getSpec().getAccounting());
        password(problems, client, ns, "spec.jobComp", cluster.getSpec().getJobComp());
        return problems;
    }

    private static void password(List<String> problems, KubernetesClient client, String ns, String field,
            DatabaseSpec db) {
        if (db != null && db.getPasswordSecretRef() != null && db.getPasswordSecretRef().getName() != null
                && db.getPasswordSecretRef().getKey() != null) {
            requireKey(problems, client, ns, field + ".passwordSecretRef", db.getPasswordSecretRef().getName(),
                    db.getPasswordSecretRef().getKey());
        }
    }

    private static void requireKey(List<String> problems, KubernetesClient client, String ns, String field,
            String name, String... keys) {
        Secret secret = client.secrets().inNamespace(ns).withName(name).get();
        if (secret == null) {
            problems.add(field + ": Secret " + ns + "/" + name + " does not exist");
            return;
        }
        for (String key : keys) {
            if ((secret.getData() == null || !secret.getData().containsKey(key))
                    && (secret.getStringData() == null || !secret.getStringData().containsKey(key))) {
                problems.add(field + ": Secret " + ns + "/" + name + " has no key " + key);
            }
        }
    }

    /** The config hash each StatefulSet's pods should run, by StatefulSet name: only those count as rolled out. */
    private static Map<String, String> desiredHashes(SlurmCluster effective, SlurmFiles.Rendered files,
            OperatorDefaults defaults) {
        Map<String, String> hashes = new TreeMap<>();
        List<StatefulSet> all = new ArrayList<>();
        all.add(SlurmStatefulSets.controller(effective, files, defaults));
        effective.getSpec().getWorkerGroupSpecs().forEach(g -> all.add(SlurmStatefulSets.workers(effective, g, files,
                defaults)));
        all.forEach(sts -> hashes.put(sts.getMetadata().getName(),
                sts.getSpec().getTemplate().getMetadata().getAnnotations().get(Labels.CONFIG_HASH)));
        return hashes;
    }

    private static SlurmClusterStatuses.Observed observe(SlurmCluster cluster, Context<SlurmCluster> context,
            List<String> problems, ScaleIn.Plan scaleIn, Map<String, String> hashes) {
        String name = cluster.getMetadata().getName();
        StatefulSet controller = null;
        Map<String, StatefulSet> workers = new TreeMap<>();
        for (StatefulSet sts : context.getSecondaryResourcesAsStream(StatefulSet.class).toList()) {
            Map<String, String> labels = sts.getMetadata().getLabels();
            if (!name.equals(labels.get(Labels.CLUSTER))) {
                continue;
            }
            if (sts.getMetadata().getName().equals(cluster.controllerName())) {
                controller = sts;
            } else if (labels.containsKey(Labels.WORKER_GROUP)) {
                workers.put(labels.get(Labels.WORKER_GROUP), sts);
            }
        }
        Deployment restApi = null;
        Deployment accounting = null;
        for (Deployment d : context.getSecondaryResourcesAsStream(Deployment.class).toList()) {
            if (d.getMetadata().getName().equals(cluster.restApiName())) {
                restApi = d;
            } else if (d.getMetadata().getName().equals(cluster.accountingName())) {
                accounting = d;
            }
        }
        return new SlurmClusterStatuses.Observed(problems, controller, workers, restApi, accounting, scaleIn,
                hashes);
    }

    /** One Warning per new set of problems, not one per reconcile. */
    private void reportNewProblem(SlurmCluster cluster, SlurmClusterStatus status) {
        Condition now = Conditions.find(status.getConditions(), SlurmClusterStatuses.CONFIG_VALID);
        Condition before = cluster.getStatus() == null ? null
                : Conditions.find(cluster.getStatus().getConditions(), SlurmClusterStatuses.CONFIG_VALID);
        if ("False".equals(now.getStatus())
                && (before == null || !Objects.equals(before.getMessage(), now.getMessage()))) {
            events.record(cluster, EventRecorder.Reason.ConfigInvalid, now.getMessage());
        }
    }

    /**
     * Patches the status, alone, when it changed. It is written here rather than through UpdateControl.patchStatus:
     * JOSDK keeps the patch's answer as its latest copy of the cluster, and when that answer already carries a spec
     * change made meanwhile, the informer's event for that change looks old and the change went unreconciled.
     */
    private static UpdateControl<SlurmCluster> patchIfChanged(SlurmCluster cluster, SlurmClusterStatus status,
            KubernetesClient client) {
        if (!status.equals(cluster.getStatus())) {
            writeStatus(cluster, status, client);
        }
        return UpdateControl.noUpdate();
    }

    /** A JSON patch that sets /status whole: its lists are replaced, never merged. */
    private static void writeStatus(SlurmCluster cluster, SlurmClusterStatus status, KubernetesClient client) {
        String patch = client.getKubernetesSerialization().asJson(
                List.of(Map.of("op", "add", "path", "/status", "value", status)));
        client.resources(SlurmCluster.class).inNamespace(cluster.getMetadata().getNamespace())
                .withName(cluster.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch);
    }
}
