package dev.colocate.operator;

import dev.colocate.api.SlurmCluster;
import dev.colocate.operator.model.OperatorDefaults;
import dev.colocate.operator.model.SlurmFiles;
import io.javaoperatorsdk.operator.api.reconciler.Context;

/**
 * What every dependent's desired state is built from besides the SlurmCluster: the cluster as it is to run now (the
 * spec, with the workers a scale-in still drains; see {@link dev.colocate.operator.model.ScaleIn}), the files
 * rendered (and validated) from it once per reconcile by {@link SlurmClusterReconciler}, and the operator's defaults.
 */
record Inputs(SlurmCluster effective, SlurmFiles.Rendered files, OperatorDefaults defaults) {

    private static final String KEY = Inputs.class.getName();

    void putInto(Context<SlurmCluster> context) {
        context.managedWorkflowAndDependentResourceContext().put(KEY, this);
    }

    static Inputs of(Context<SlurmCluster> context) {
        return context.managedWorkflowAndDependentResourceContext().getMandatory(KEY, Inputs.class);
    }
}
