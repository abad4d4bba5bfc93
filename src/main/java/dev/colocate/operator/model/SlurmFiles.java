package dev.colocate.operator.model;

import static dev.colocate.operator.model.ConfMerge.exact;
import static dev.colocate.operator.model.ConfMerge.forbidden;
import static dev.colocate.operator.model.ConfMerge.includes;
import static dev.colocate.operator.model.ConfMerge.matching;

import dev.colocate.api.DatabaseSpec;
import dev.colocate.api.SlurmCluster;
import dev.colocate.api.WorkerGroupSpec;
import dev.colocate.config.CopilotConfig;
import dev.colocate.operator.model.ConfFile.Line;
import dev.colocate.operator.model.ConfFile.Setting;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The configuration files of a SlurmCluster's ConfigMap: slurm.conf, gres.conf, cgroup.conf, job_submit.lua and,
 * with accounting, slurmdbd.conf, each merged with the user's file of the same name; other user files as given.
 */
public final class SlurmFiles {

    public static final String SLURM_CONF = "slurm.conf";
    public static final String GRES_CONF = "gres.conf";
    public static final String CGROUP_CONF = "cgroup.conf";
    public static final String SLURMDBD_CONF = "slurmdbd.conf";
    public static final String JOB_SUBMIT_LUA = "job_submit.lua";

    private static final Set<String> RECORD_KEYS = Set.of("nodename", "partitionname", "nodeset", "downnodes",
            "frontendname", "switchname");
    private static final String PASSWORD = "passwords belong in a Secret (spec.accounting, spec.jobComp), never in "
            + "a ConfigMap";

    /** The files by name, and what makes the user's part of them unusable. */
    public record Rendered(Map<String, String> files, List<String> problems) {
    }

    private SlurmFiles() {
    }

    /** The files with the default holds partition and HS256 only. */
    public static Rendered render(SlurmCluster cluster, String jobSubmitLua) {
        return render(cluster, jobSubmitLua, null, CopilotConfig.DEFAULT_HOLDS_PARTITION);
    }

    /**
     * The files, with {@code jwks} (the public JWKS of the cluster's RS256 key, or null for HS256 only) in
     * {@code jwks.json}, which slurmctld then verifies RS256 tokens against, and colocate's partition of holds
     * ({@code colocate.copilot.holds-partition}): slurm.conf must carry it, since one made at run time is lost on
     * restart.
     */
    /** The line of job_submit.lua that names the holds partition, whose holds it leaves alone. */
    static final String LUA_HOLDS_PARTITION = "local HOLDS_PARTITION = \"holds\"";

    /** job_submit.lua exempting the holds in {@code holdsPartition} (a Slurm partition name: no quote in it). */
    static String withHoldsPartition(String lua, String holdsPartition) {
        if (!holdsPartition.matches("[A-Za-z0-9_.-]+")) {
            throw new IllegalArgumentException("holds partition name " + holdsPartition + " is not a Slurm "
                    + "partition name of letters, digits, '_', '.' and '-'");
        }
        return lua.replace(LUA_HOLDS_PARTITION, "local HOLDS_PARTITION = \"" + holdsPartition + "\"");
    }

    public static Rendered render(SlurmCluster cluster, String jobSubmitLua, String jwks, String holdsPartition) {
        Map<String, String> user = cluster.getSpec().getSlurmConfigs().getFilesInConfigMap();
        Map<String, String> files = new TreeMap<>(user);
        List<String> problems = new ArrayList<>();
        String header = "# Rendered by colocate for SlurmCluster " + cluster.getMetadata().getNamespace() + "/"
                + cluster.getMetadata().getName() + ".\n";

        ConfMerge.Result slurmConf = slurmConf(cluster, header, user.get(SLURM_CONF), jwks != null,
                holdsPartition);
        files.put(SLURM_CONF, slurmConf.text());
        problems.addAll(slurmConf.problems());

        ConfMerge.Result gres = gresConf(header, user.get(GRES_CONF));
        files.put(GRES_CONF, gres.text());
        problems.addAll(gres.problems());

        ConfMerge.Result cgroup = ConfMerge.merge(CGROUP_CONF, header + "# No cgroup plugin confines jobs "
                + "(ProctrackType=proctrack/linuxproc, TaskPlugin=task/none). Slurm 23.11 and later still want a cgroup "
                + "mount in the slurmd pod unless this file says CgroupPlugin=disabled (22.05 has no such value).\n",
                List.of(), List.of(), user.get(CGROUP_CONF), Map.of(), Set.of(), l -> null);
        files.put(CGROUP_CONF, cgroup.text());
        problems.addAll(cgroup.problems());

        if (cluster.getSpec().getAccounting() != null || user.containsKey(SLURMDBD_CONF)) {
            ConfMerge.Result dbd = slurmdbdConf(cluster, header, user.get(SLURMDBD_CONF));
            files.put(SLURMDBD_CONF, dbd.text());
            problems.addAll(dbd.problems());
        }
        files.putIfAbsent(JOB_SUBMIT_LUA, jobSubmitLua == null ? null : withHoldsPartition(jobSubmitLua,
                holdsPartition));
        if (jwks != null) {
            files.put(SlurmPaths.JWKS_FILE, jwks);
        }
        return new Rendered(files, List.copyOf(problems));
    }

    /** The Slurm node names of a group, as a Slurm host list ({@code c-worker-cpu-[0-3]}); null for no replicas. */
    public static String nodeList(SlurmCluster cluster, WorkerGroupSpec group) {
        String prefix = cluster.workerName(group.getGroupName()) + "-";
        return switch (group.getReplicas()) {
            case 0 -> null;
            case 1 -> prefix + "0";
            default -> prefix + "[0-" + (group.getReplicas() - 1) + "]";
        };
    }

    /** The controller's SlurmctldHost value: the StatefulSet pod's host name, with its address in the Service. */
    public static String controllerHost(SlurmCluster cluster) {
        return controllerHost(cluster, 0);
    }

    /** The SlurmctldHost value of the StatefulSet's pod {@code ordinal} (1: the backup controller). */
    public static String controllerHost(SlurmCluster cluster, int ordinal) {
        String host = cluster.controllerName() + "-" + ordinal;
        return host + "(" + host + "." + cluster.controllerName() + ")";
    }

    private static ConfMerge.Result slurmConf(SlurmCluster cluster, String header, String user, boolean jwks,
            String holdsPartition) {
        List<Setting> s = new ArrayList<>();
        Map<String, ConfMerge.Rule> rules = new HashMap<>();
        fixed(s, rules, "ClusterName", cluster.getMetadata().getName(), "it is the SlurmCluster's name, which "
                + "the copilot's GenericNodes carry");
        fixed(s, rules, "SlurmctldHost", controllerHost(cluster), "the controller is the slurmctld StatefulSet's pod");
        fixed(s, rules, "SlurmUser", "slurm", "the image's daemons run as slurm");
        fixed(s, rules, "SlurmctldPort", String.valueOf(SlurmPaths.SLURMCTLD_PORT), "the Services expose it");
        fixed(s, rules, "SlurmdPort", String.valueOf(SlurmPaths.SLURMD_PORT), "the Services expose it");
        fixed(s, rules, "AuthType", "auth/munge", "the operator distributes a munge key");
        s.add(new Setting("AuthAltTypes", "auth/jwt"));
        rules.put("authalttypes", includes("slurmrestd and the copilot authenticate with JWT", "auth/jwt"));
        fixed(s, rules, "AuthAltParameters", "jwt_key=" + SlurmPaths.JWT_KEY_RUNTIME
                + (jwks ? ",jwks=" + SlurmPaths.JWKS : ""), "the entrypoint puts the JWT key there for SlurmUser"
                + (jwks ? ", and colocate signs RS256 with the key of that JWKS" : ""));
        fixed(s, rules, "StateSaveLocation", SlurmPaths.STATE_SAVE, "it is slurmctld's persistent claim");
        fixed(s, rules, "SlurmdSpoolDir", SlurmPaths.SLURMD_SPOOL, "the image prepares it");
        s.add(new Setting("ProctrackType", "proctrack/linuxproc"));
        s.add(new Setting("TaskPlugin", "task/none"));
        fixed(s, rules, "SelectType", "select/cons_tres", "holds and the k8s GRES need it");
        s.add(new Setting("SelectTypeParameters", "CR_Core_Memory"));
        rules.put("selecttypeparameters", matching(v -> v.toLowerCase(Locale.ROOT).endsWith("_memory"),
                "leaves memory unallocated: colocate's holds keep Kubernetes' memory from Slurm, so use "
                        + "CR_Core_Memory, CR_CPU_Memory or CR_Socket_Memory"));
        // Without a default, a job that asks no memory takes the whole node's.
        s.add(new Setting("DefMemPerCPU", "1024"));
        s.add(new Setting("SlurmdParameters", "config_overrides"));
        rules.put("slurmdparameters", includes("in a container slurmd sees the host's CPUs and memory, not the "
                + "pod's, and drains the node without it", "config_overrides"));
        s.add(new Setting("ReturnToService", "2"));
        // A worker pod that restarts comes back on a new address; a cached one leaves its jobs completing for good.
        s.add(new Setting("CommunicationParameters", "NoAddrCache"));
        s.add(new Setting("MailProg", "/bin/true"));
        boolean gpus = gpuGroups(cluster).findAny().isPresent();
        s.add(new Setting("GresTypes", gpus ? "k8scpu,k8smemory,gpu" : "k8scpu,k8smemory"));
        rules.put("grestypes", gpus
                ? includes("the copilot's holds and job_submit.lua use k8scpu and k8smemory, and worker groups ask "
                        + "for " + WorkerSize.NVIDIA_GPU, "k8scpu", "k8smemory", "gpu")
                : includes("the copilot's holds and job_submit.lua use them", "k8scpu", "k8smemory"));
        s.add(new Setting("JobSubmitPlugins", "lua"));
        rules.put("jobsubmitplugins", includes("colocate's job_submit.lua takes the place of ACK's "
                + "k8s_resource_completion", "lua"));
        rules.put("nodefeaturesplugins", matching(v -> !v.contains("k8s_resources"), "is ACK's own plugin, which "
                + "stock Slurm lacks: colocate's holds take its place, so leave the line out"));
        rules.put("accountingstoragepass", forbidden(PASSWORD));
        rules.put("jobcomppass", forbidden(PASSWORD));
        DatabaseSpec accounting = cluster.getSpec().getAccounting();
        if (accounting != null) {
            String why = "spec.accounting runs slurmdbd for this cluster";
            fixed(s, rules, "AccountingStorageType", "accounting_storage/slurmdbd", why);
            fixed(s, rules, "AccountingStorageHost", cluster.accountingName(), why);
            fixed(s, rules, "AccountingStoragePort", String.valueOf(SlurmPaths.SLURMDBD_PORT), why);
            s.add(new Setting("AccountingStorageTRES", "gres/k8scpu,gres/k8smemory"));
        }
        DatabaseSpec jobComp = cluster.getSpec().getJobComp();
        if (jobComp != null) {
            String why = "it is set from spec.jobComp";
            fixed(s, rules, "JobCompType", "jobcomp/mysql", why);
            fixed(s, rules, "JobCompHost", jobComp.getHost(), why);
            fixed(s, rules, "JobCompPort", String.valueOf(jobComp.getPort()), why);
            fixed(s, rules, "JobCompUser", jobComp.getUser(), why);
            if (jobComp.getDatabase() != null) {
                fixed(s, rules, "JobCompLoc", jobComp.getDatabase(), why);
            }
        }

        List<String> records = new ArrayList<>();
        if (cluster.getSpec().getHeadNodeConfig().backup()) {
            // the second SlurmctldHost line names the backup; it follows the first, which the settings put first
            records.add("SlurmctldHost=" + controllerHost(cluster, 1));
        }
        List<String> sharedNodes = new ArrayList<>();
        Set<String> partitions = new java.util.HashSet<>(Set.of(holdsPartition.toLowerCase(Locale.ROOT)));
        boolean userDefault = userHasDefaultPartition(user);
        boolean first = true;
        for (WorkerGroupSpec group : cluster.getSpec().getWorkerGroupSpecs()) {
            partitions.add(group.getGroupName().toLowerCase(Locale.ROOT));
            String nodes = nodeList(cluster, group);
            WorkerSize size = WorkerSize.of(group).orElse(null);
            if (nodes == null || size == null) {
                continue;
            }
            List<String> features = new ArrayList<>(List.of(group.getGroupName()));
            features.addAll(group.getFeatures());
            records.add("NodeName=" + nodes + " CPUs=" + size.cpus() + " RealMemory=" + size.memoryMb()
                    + " Gres=k8scpu:" + size.cpus() + ",k8smemory:" + size.memoryMb()
                    + (size.gpus() > 0 ? ",gpu:" + size.gpus() : "")
                    + " Feature=" + String.join(",", features) + " State=UNKNOWN");
            records.add("PartitionName=" + group.getGroupName() + " Nodes=" + nodes
                    + (first && !userDefault ? " Default=YES" : "") + " MaxTime=INFINITE State=UP");
            first = false;
            if (group.isShared()) {
                sharedNodes.add(nodes);
            }
        }
        if (!sharedNodes.isEmpty()) {
            // The top tier and no preemption: an immediate hold must be the first job Slurm would start there.
            records.add("PartitionName=" + holdsPartition + " Nodes=" + String.join(",", sharedNodes)
                    + " PriorityTier=65000 PreemptMode=OFF MaxTime=INFINITE Hidden=YES RootOnly=YES State=UP");
        }
        String workerPrefix = cluster.getMetadata().getName() + "-worker-";
        return ConfMerge.merge(SLURM_CONF, header, s, records, user, rules, RECORD_KEYS,
                line -> recordProblem(line, workerPrefix, partitions));
    }

    private static String recordProblem(Line line, String workerPrefix, Set<String> partitions) {
        Setting first = line.first();
        if (first.is("NodeName") && first.value().startsWith(workerPrefix)) {
            return "NodeName=" + first.value() + " names a worker node: their lines are rendered from "
                    + "workerGroupSpecs";
        }
        if (first.is("PartitionName") && partitions.contains(first.value().toLowerCase(Locale.ROOT))) {
            return "PartitionName=" + first.value() + " is rendered by colocate (a worker group's partition, or "
                    + "the holds partition)";
        }
        return null;
    }

    private static boolean userHasDefaultPartition(String user) {
        return ConfFile.parse(SLURM_CONF, user).lines().stream()
                .filter(l -> l.include() == null && l.first().is("PartitionName"))
                .flatMap(l -> l.settings().stream())
                .anyMatch(s -> s.is("Default") && s.value().equalsIgnoreCase("YES"));
    }

    /** The groups whose nodes have GPUs. */
    private static java.util.stream.Stream<WorkerGroupSpec> gpuGroups(SlurmCluster cluster) {
        return cluster.getSpec().getWorkerGroupSpecs().stream()
                .filter(g -> WorkerSize.of(g).map(size -> size.gpus() > 0).orElse(false));
    }

    /**
     * colocate's count-only k8scpu and k8smemory. A GPU group's GPUs are not counted here: Slurm drops a GPU line
     * without {@code File=} ("Removing file-less GPU", and the node drains: "gres/gpu count reported lower than
     * configured"), and in a pod the device plugin decides which GPUs slurmd sees, under which device names. So the
     * image's entrypoint names them, from the devices in the pod (see {@link SlurmPaths#ENV_GPUS}), unless the user's
     * own {@code Name=gpu} or {@code AutoDetect} lines do.
     */
    private static ConfMerge.Result gresConf(String header, String user) {
        List<String> ours = List.of("Name=k8scpu Flags=CountOnly", "Name=k8smemory Flags=CountOnly");
        // ACK's sample gres.conf carries colocate's own two lines: they are taken as said once, not twice.
        String others = user == null ? null : user.lines()
                .map(l -> ours.contains(l.trim().replaceAll("\\s+", " ")) ? "" : l)
                .reduce("", (a, b) -> a + b + "\n");
        return ConfMerge.merge(GRES_CONF, header, List.of(), ours, others, Map.of(),
                Set.of("name", "nodename", "autodetect"), line -> {
                    boolean k8s = line.settings().stream().anyMatch(s -> s.is("Name")
                            && (s.value().equals("k8scpu") || s.value().equals("k8smemory")));
                    return k8s ? line.text() + " is colocate's: k8scpu and k8smemory are rendered as "
                            + "Name=<name> Flags=CountOnly" : null;
                });
    }

    private static ConfMerge.Result slurmdbdConf(SlurmCluster cluster, String header, String user) {
        List<Setting> s = new ArrayList<>();
        Map<String, ConfMerge.Rule> rules = new HashMap<>();
        rules.put("storagepass", forbidden("the password comes from spec.accounting.passwordSecretRef, which the "
                + "entrypoint writes in at start; " + PASSWORD));
        DatabaseSpec db = cluster.getSpec().getAccounting();
        if (db != null) {
            fixed(s, rules, "AuthType", "auth/munge", "the operator distributes a munge key");
            s.add(new Setting("AuthAltTypes", "auth/jwt"));
            fixed(s, rules, "AuthAltParameters", "jwt_key=" + SlurmPaths.JWT_KEY_RUNTIME, "the entrypoint puts "
                    + "the JWT key there for SlurmUser");
            fixed(s, rules, "DbdHost", cluster.accountingName(), "it is the slurmdbd pod's host name");
            fixed(s, rules, "DbdPort", String.valueOf(SlurmPaths.SLURMDBD_PORT), "the Service exposes it");
            fixed(s, rules, "SlurmUser", "slurm", "the image's daemons run as slurm");
            String why = "it is set from spec.accounting";
            fixed(s, rules, "StorageType", "accounting_storage/mysql", why);
            fixed(s, rules, "StorageHost", db.getHost(), why);
            fixed(s, rules, "StoragePort", String.valueOf(db.getPort()), why);
            fixed(s, rules, "StorageUser", db.getUser(), why);
            if (db.getDatabase() != null) {
                fixed(s, rules, "StorageLoc", db.getDatabase(), why);
            }
        }
        return ConfMerge.merge(SLURMDBD_CONF, header, s, List.of(), user, rules, Set.of(), l -> null);
    }

    private static void fixed(List<Setting> settings, Map<String, ConfMerge.Rule> rules, String key, String value,
            String why) {
        settings.add(new Setting(key, value));
        rules.put(key.toLowerCase(Locale.ROOT), exact(value, why));
    }
}
