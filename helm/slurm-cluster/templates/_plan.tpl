{{/*
What the chart makes of the values, as YAML: the SlurmCluster's spec, the database passwords that go into a Secret,
and the notes that say what became of each ACK value that means something else here. slurmcluster.yaml, secrets.yaml
and NOTES.txt all read it, so that they agree.

The operator refuses (ConfigValid=False) a user line that breaks colocation (ACK's plugins, a jwt_key path of its own,
SlurmctldHost, passwords); such lines are replaced here and the notes say by what, so ACK values install unchanged.
*/}}
{{- define "slurm-cluster.plan" -}}
{{- $v := .Values -}}
{{- $name := include "slurm-cluster.name" . -}}
{{- $jwtSecret := include "slurm-cluster.jwtSecret" . -}}
{{- $passwordSecret := include "slurm-cluster.passwordSecret" . -}}
{{- $notes := list -}}
{{- $passwords := dict -}}
{{- $spec := dict -}}
{{- if $v.image -}}{{- $_ := set $spec "image" $v.image -}}{{- end -}}

{{- /* the components */ -}}
{{- $podKeys := include "slurm-cluster.podKeys" . | fromYamlArray -}}
{{- $head := include "slurm-cluster.component" (dict "c" $v.headNodeConfig "path" "headNodeConfig" "keys" (concat $podKeys (list "backupController" "stateSaveStorage")) "jwtSecret" $jwtSecret) | fromYaml -}}
{{- $storage := dict -}}
{{- range $key, $value := ($head.spec.stateSaveStorage | default dict) -}}
{{- if $value -}}{{- $_ := set $storage $key $value -}}{{- end -}}
{{- end -}}
{{- $_ := unset $head.spec "stateSaveStorage" -}}
{{- if $storage -}}{{- $_ := set $head.spec "stateSaveStorage" $storage -}}{{- end -}}
{{- $_ := set $spec "headNodeConfig" $head.spec -}}
{{- $notes = concat $notes $head.notes -}}
{{- range $component := list "slurmdbdConfigs" "slurmrestdConfigs" -}}
{{- $c := include "slurm-cluster.component" (dict "c" (get $v $component) "path" $component "keys" $podKeys "jwtSecret" $jwtSecret) | fromYaml -}}
{{- $_ := set $spec $component $c.spec -}}
{{- $notes = concat $notes $c.notes -}}
{{- end -}}
{{- $workers := list -}}
{{- range $i, $group := $v.workerGroupSpecs -}}
{{- $path := printf "workerGroupSpecs[%s]" ($group.groupName | default (toString $i)) -}}
{{- $c := include "slurm-cluster.component" (dict "c" $group "path" $path "keys" (concat $podKeys (list "groupName" "replicas" "shared" "features")) "jwtSecret" $jwtSecret "worker" true "defaultMemory" $v.defaultWorkerMemory) | fromYaml -}}
{{- $workers = append $workers $c.spec -}}
{{- $notes = concat $notes $c.notes -}}
{{- end -}}
{{- $_ := set $spec "workerGroupSpecs" $workers -}}

{{- /* the configuration files */ -}}
{{- $configs := $v.slurmConfigs | default dict -}}
{{- $notes = concat $notes (include "slurm-cluster.unknownKeys" (dict "v" $configs "path" "slurmConfigs" "keys" (list "filesInConfigMap" "createConfigsByConfigMap" "configMapName" "slurmConfigPathInPod")) | fromYamlArray) -}}
{{- if $configs.configMapName -}}
{{- $notes = append $notes (printf "slurmConfigs.configMapName %s is not read: the operator renders %s-slurm-config from slurmConfigs.filesInConfigMap" $configs.configMapName $name) -}}
{{- end -}}
{{- if $configs.slurmConfigPathInPod -}}
{{- $notes = append $notes (printf "slurmConfigs.slurmConfigPathInPod %s is not used: the operator mounts the files at /etc/slurm" $configs.slurmConfigPathInPod) -}}
{{- end -}}
{{- if and (hasKey $configs "createConfigsByConfigMap") (not $configs.createConfigsByConfigMap) -}}
{{- $notes = append $notes (printf "slurmConfigs.createConfigsByConfigMap=false has no effect: the operator always renders %s-slurm-config" $name) -}}
{{- end -}}
{{- $files := deepCopy ($configs.filesInConfigMap | default dict) -}}
{{- $slurm := get $files "slurm.conf" | default "" -}}
{{- $dbd := get $files "slurmdbd.conf" | default "" -}}

{{- $nfp := include "slurm-cluster.confGet" (dict "conf" $slurm "key" "NodeFeaturesPlugins") -}}
{{- if contains "k8s_resources" $nfp -}}
{{- $rest := list -}}
{{- range $p := splitList "," $nfp -}}{{- if not (contains "k8s_resources" $p) -}}{{- $rest = append $rest (trim $p) -}}{{- end -}}{{- end -}}
{{- if $rest -}}
{{- $slurm = include "slurm-cluster.confSet" (dict "conf" $slurm "key" "NodeFeaturesPlugins" "value" (join "," $rest)) -}}
{{- else -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (list "NodeFeaturesPlugins")) -}}
{{- end -}}
{{- $notes = append $notes "slurm.conf: NodeFeaturesPlugins node_features/k8s_resources (ACK's own plugin, which stock Slurm lacks) left out: colocate's copilot keeps Kubernetes' share out of Slurm's reach with holds, jobs in the holds partition" -}}
{{- end -}}

{{- $jsp := include "slurm-cluster.confGet" (dict "conf" $slurm "key" "JobSubmitPlugins") -}}
{{- if contains "k8s_resource_completion" $jsp -}}
{{- $rest := list -}}
{{- range $p := splitList "," $jsp -}}{{- if not (contains "k8s_resource_completion" $p) -}}{{- $rest = append $rest (trim $p) -}}{{- end -}}{{- end -}}
{{- if $rest -}}
{{- if not (or (has "lua" $rest) (has "job_submit/lua" $rest)) -}}{{- $rest = prepend $rest "lua" -}}{{- end -}}
{{- $slurm = include "slurm-cluster.confSet" (dict "conf" $slurm "key" "JobSubmitPlugins" "value" (join "," $rest)) -}}
{{- else -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (list "JobSubmitPlugins")) -}}
{{- end -}}
{{- $notes = append $notes "slurm.conf: JobSubmitPlugins k8s_resource_completion (ACK's own plugin) replaced by JobSubmitPlugins=lua: colocate's job_submit.lua adds gres:k8scpu and gres:k8smemory to every job from its CPU and memory request, as ACK's plugin does" -}}
{{- end -}}

{{- $ctld := include "slurm-cluster.confGet" (dict "conf" $slurm "key" "SlurmctldHost") -}}
{{- if $ctld -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (list "SlurmctldHost")) -}}
{{- $notes = append $notes (printf "slurm.conf: SlurmctldHost=%s left out: the operator names slurmctld's hosts (%s-slurmctld-0); for a backup controller set headNodeConfig.backupController" $ctld $name) -}}
{{- end -}}

{{- range $file := list "slurm.conf" "slurmdbd.conf" -}}
{{- $conf := ternary $slurm $dbd (eq $file "slurm.conf") -}}
{{- $alt := include "slurm-cluster.confGet" (dict "conf" $conf "key" "AuthAltParameters") -}}
{{- if $alt -}}
{{- $conf = include "slurm-cluster.confDrop" (dict "conf" $conf "keys" (list "AuthAltParameters")) -}}
{{- $notes = append $notes (printf "%s: AuthAltParameters=%s left out: the operator gives the daemons the JWT key of the Secret %s at a path of its own" $file $alt $jwtSecret) -}}
{{- end -}}
{{- if eq $file "slurm.conf" -}}{{- $slurm = $conf -}}{{- else -}}{{- $dbd = $conf -}}{{- end -}}
{{- end -}}

{{- if include "slurm-cluster.confGet" (dict "conf" $slurm "key" "AccountingStoragePass") -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (list "AccountingStoragePass")) -}}
{{- $notes = append $notes "slurm.conf: AccountingStoragePass left out: passwords never go in a ConfigMap, and slurmctld reaches this cluster's slurmdbd with munge" -}}
{{- end -}}

{{- /* accounting: slurmdbd and its database */ -}}
{{- $acc := include "slurm-cluster.database" (dict "v" $v.accounting "path" "accounting" "file" "slurmdbd.conf" "conf" $dbd "host" "StorageHost" "port" "StoragePort" "user" "StorageUser" "loc" "StorageLoc" "pass" "StoragePass" "passwordSecret" $passwordSecret) | fromYaml -}}
{{- $notes = concat $notes $acc.notes -}}
{{- $dbd = include "slurm-cluster.confDrop" (dict "conf" $dbd "keys" (list "StoragePass")) -}}
{{- $accountingKeys := list "AccountingStorageType" "AccountingStorageHost" "AccountingStoragePort" -}}
{{- if $acc.db -}}
{{- $_ := set $spec "accounting" $acc.db -}}
{{- if $acc.password -}}{{- $_ := set $passwords "accounting" $acc.password -}}{{- end -}}
{{- $dbd = include "slurm-cluster.confDrop" (dict "conf" $dbd "keys" (list "StorageType" "StorageHost" "StoragePort" "StorageUser" "StorageLoc")) -}}
{{- $host := include "slurm-cluster.confGet" (dict "conf" $slurm "key" "AccountingStorageHost") -}}
{{- if and $host (ne $host (printf "%s-slurmdbd" $name)) -}}
{{- $notes = append $notes (printf "slurm.conf: AccountingStorageHost=%s replaced by %s-slurmdbd, this cluster's slurmdbd" $host $name) -}}
{{- end -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" $accountingKeys) -}}
{{- else if contains "slurmdbd" (include "slurm-cluster.confGet" (dict "conf" $slurm "key" "AccountingStorageType")) -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (append $accountingKeys "AccountingStorageTRES")) -}}
{{- $notes = append $notes "slurm.conf: AccountingStorageType=accounting_storage/slurmdbd left out, with AccountingStorageHost and AccountingStoragePort: no database is named (accounting.host, or StorageHost= in slurmdbd.conf), so no slurmdbd runs" -}}
{{- end -}}

{{- /* jobcomp/mysql */ -}}
{{- $jobCompKeys := list "JobCompType" "JobCompHost" "JobCompPort" "JobCompUser" "JobCompLoc" "JobCompPass" -}}
{{- $jobCompType := include "slurm-cluster.confGet" (dict "conf" $slurm "key" "JobCompType") -}}
{{- $jobCompConf := ternary $slurm "" (or (eq $jobCompType "jobcomp/mysql") (eq $jobCompType "")) -}}
{{- $jc := include "slurm-cluster.database" (dict "v" $v.jobComp "path" "jobComp" "file" "slurm.conf" "conf" $jobCompConf "host" "JobCompHost" "port" "JobCompPort" "user" "JobCompUser" "loc" "JobCompLoc" "pass" "JobCompPass" "passwordSecret" $passwordSecret) | fromYaml -}}
{{- $notes = concat $notes $jc.notes -}}
{{- if $jc.db -}}
{{- $_ := set $spec "jobComp" $jc.db -}}
{{- if $jc.password -}}{{- $_ := set $passwords "jobComp" $jc.password -}}{{- end -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" $jobCompKeys) -}}
{{- else if eq $jobCompType "jobcomp/mysql" -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" $jobCompKeys) -}}
{{- $notes = append $notes "slurm.conf: JobCompType=jobcomp/mysql left out, with its JobComp* lines: no database is named (jobComp.host, or JobCompHost=), so no job completion records are kept" -}}
{{- else -}}
{{- $slurm = include "slurm-cluster.confDrop" (dict "conf" $slurm "keys" (list "JobCompPass")) -}}
{{- end -}}

{{- if hasKey $files "slurm.conf" -}}{{- $_ := set $files "slurm.conf" $slurm -}}{{- end -}}
{{- if hasKey $files "slurmdbd.conf" -}}{{- $_ := set $files "slurmdbd.conf" $dbd -}}{{- end -}}
{{- $_ := set $spec "slurmConfigs" (dict "filesInConfigMap" $files) -}}

{{- /* the keys */ -}}
{{- $notes = concat $notes (include "slurm-cluster.unknownKeys" (dict "v" $v.mungeConfigs "path" "mungeConfigs" "keys" (list "secretName" "createConfigsBySecret")) | fromYamlArray) -}}
{{- $munge := $v.mungeConfigs.secretName | default (include "slurm-cluster.mungeSecretCreated" .) -}}
{{- $_ := set $spec "mungeConfigs" (ternary (dict "secretName" $munge) dict (ne $munge "")) -}}
{{- $jwt := dict "algorithm" $v.jwtConfigs.algorithm -}}
{{- $jwtNamed := $v.jwtConfigs.secretName | default (include "slurm-cluster.jwtSecretCreated" .) -}}
{{- if $jwtNamed -}}{{- $_ := set $jwt "secretName" $jwtNamed -}}{{- end -}}
{{- if and (eq $v.jwtConfigs.algorithm "RS256") (include "slurm-cluster.jwtSecretCreated" .) -}}
{{- fail "jwtConfigs.algorithm RS256 needs jwt_rs256.key, a PKCS#8 RSA key, which Helm cannot generate: name a Secret that holds it in jwtConfigs.secretName, or set jwtConfigs.createConfigsBySecret=false so that the operator generates both keys" -}}
{{- end -}}
{{- $_ := set $spec "jwtConfigs" $jwt -}}
{{- toYaml (dict "spec" $spec "passwords" $passwords "notes" $notes) -}}
{{- end -}}
