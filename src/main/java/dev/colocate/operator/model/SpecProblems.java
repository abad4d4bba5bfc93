package dev.colocate.operator.model;

import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.SlurmClusterSpec;
import dev.colocate.api.WorkerGroupSpec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What makes a SlurmCluster's spec unusable, beyond what the CRD schema already refuses (an API server without the
 * schema, or an older CRD, lets such specs through; the operator then leaves the cluster as it is).
 */
public final class SpecProblems {

    private static final Pattern GROUP = Pattern.compile(WorkerGroupSpec.GROUP_NAME_PATTERN);
    private static final Pattern FILE = Pattern.compile("[-._a-zA-Z0-9]+");
    /** StatefulSet pods get a controller-revision-hash label of name plus 11 characters, within 63. */
    private static final int MAX_STATEFULSET_NAME = 52;

    private SpecProblems() {
    }

    /** The problems, each a sentence naming the field; empty when the spec can be reconciled. */
    public static List<String> of(SlurmCluster cluster, OperatorDefaults defaults) {
        SlurmClusterSpec spec = cluster.getSpec();
        List<String> problems = new ArrayList<>();
        image(problems, "spec.image", spec.getImage());
        image(problems, "spec.headNodeConfig.image", spec.getHeadNodeConfig().getImage());
        image(problems, "spec.slurmrestdConfigs.image", spec.getSlurmrestdConfigs().getImage());
        image(problems, "spec.slurmdbdConfigs.image", spec.getSlurmdbdConfigs().getImage());
        if (cluster.controllerName().length() > MAX_STATEFULSET_NAME) {
            problems.add("metadata.name is too long: " + cluster.controllerName() + " must be at most "
                    + MAX_STATEFULSET_NAME + " characters");
        }
        Set<String> seen = new HashSet<>();
        for (WorkerGroupSpec g : spec.getWorkerGroupSpecs()) {
            String at = "spec.workerGroupSpecs[" + g.getGroupName() + "]";
            if (g.getGroupName() == null || !GROUP.matcher(g.getGroupName()).matches()) {
                problems.add("spec.workerGroupSpecs: groupName \"" + g.getGroupName() + "\" is not a lower-case DNS "
                        + "label of at most 32 characters");
                continue;
            }
            if (!seen.add(g.getGroupName())) {
                problems.add(at + ": groupName is used twice; each group is one StatefulSet and one partition");
            }
            if (g.getReplicas() < 0 || g.getReplicas() > WorkerGroupSpec.MAX_REPLICAS) {
                problems.add(at + ".replicas is " + g.getReplicas() + ": it must be 0 to "
                        + WorkerGroupSpec.MAX_REPLICAS);
            }
            if (cluster.workerName(g.getGroupName()).length() > MAX_STATEFULSET_NAME) {
                problems.add(at + ": " + cluster.workerName(g.getGroupName()) + " is too long for a StatefulSet "
                        + "name (at most " + MAX_STATEFULSET_NAME + " characters)");
            }
            if (WorkerSize.of(g).isEmpty()) {
                problems.add(at + ".resources must give at least one whole cpu and some memory (limits, or "
                        + "requests): slurm.conf describes each Slurm node by them");
            }
            image(problems, at + ".image", g.getImage());
        }
        for (var file : spec.getSlurmConfigs().getFilesInConfigMap().entrySet()) {
            if (!FILE.matcher(file.getKey()).matches()) {
                problems.add("spec.slurmConfigs.filesInConfigMap: \"" + file.getKey() + "\" is not a valid file name");
            }
            text(problems, "spec.slurmConfigs.filesInConfigMap[" + file.getKey() + "]", file.getValue());
        }
        database(problems, "spec.accounting", spec.getAccounting());
        database(problems, "spec.jobComp", spec.getJobComp());
        return problems;
    }

    /**
     * Slurm's configuration files are text: a control character other than tab and line ends, or U+FFFD (what the API
     * server makes of bytes that were not UTF-8), means binary bytes were pasted in, which slurmctld would refuse at
     * start, or read as some other setting.
     */
    private static void text(List<String> problems, String field, String content) {
        if (content == null) {
            return;
        }
        int line = 1;
        for (int i = 0; i < content.length(); i++) {
            char ch = content.charAt(i);
            if (ch == '\n') {
                line++;
            } else if (ch == '\uFFFD') {
                problems.add(field + ": line " + line + " holds U+FFFD, bytes that were not UTF-8: Slurm reads text");
                return;
            } else if (Character.isISOControl(ch) && ch != '\t' && ch != '\r') {
                problems.add(field + ": line " + line + " holds the control character U+%04X: Slurm reads text"
                        .formatted((int) ch));
                return;
            }
        }
    }

    private static void image(List<String> problems, String field, String image) {
        if (image != null && !image.isBlank() && !Images.pinned(image)) {
            problems.add(field + " \"" + image + "\" has no tag or digest: name a version, so that every pod runs "
                    + "the same Slurm");
        }
    }

    private static void database(List<String> problems, String field, DatabaseSpec db) {
        if (db == null) {
            return;
        }
        if (blank(db.getHost()) || blank(db.getUser())) {
            problems.add(field + " needs host and user");
        }
        if (db.getPasswordSecretRef() == null || blank(db.getPasswordSecretRef().getName())
                || blank(db.getPasswordSecretRef().getKey())) {
            problems.add(field + ".passwordSecretRef needs name and key");
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

}
