{{/*
The SlurmCluster's name: the release's, as ACK names its pods after the release. The operator names the slurmctld
StatefulSet <name>-slurmctld, whose pods' controller-revision-hash label must stay within 63 characters.
*/}}
{{- define "slurm-cluster.name" -}}
{{- $name := .Values.nameOverride | default .Release.Name -}}
{{- if gt (len $name) 42 -}}
{{- fail (printf "nameOverride (or the release name) %q is longer than 42 characters: the operator's StatefulSet %s-slurmctld would be too long" $name $name) -}}
{{- end -}}
{{- $name -}}
{{- end -}}

{{- define "slurm-cluster.labels" -}}
app.kubernetes.io/name: slurm-cluster
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The munge key's Secret when this chart creates it, else "". */}}
{{- define "slurm-cluster.mungeSecretCreated" -}}
{{- if and (not .Values.mungeConfigs.secretName) .Values.mungeConfigs.createConfigsBySecret -}}
{{- printf "%s-munge-key" (include "slurm-cluster.name" .) -}}
{{- end -}}
{{- end -}}

{{/* The JWT keys' Secret when this chart creates it, else "". */}}
{{- define "slurm-cluster.jwtSecretCreated" -}}
{{- if and (not .Values.jwtConfigs.secretName) .Values.jwtConfigs.createConfigsBySecret -}}
{{- printf "%s-jwt-key" (include "slurm-cluster.name" .) -}}
{{- end -}}
{{- end -}}

{{/* The JWT keys' Secret the pods get: the user's, this chart's, or the one the operator generates (<name>-jwt). */}}
{{- define "slurm-cluster.jwtSecret" -}}
{{- .Values.jwtConfigs.secretName | default (include "slurm-cluster.jwtSecretCreated" .) | default (printf "%s-jwt" (include "slurm-cluster.name" .)) -}}
{{- end -}}

{{- define "slurm-cluster.passwordSecret" -}}
{{- printf "%s-db-passwords" (include "slurm-cluster.name" .) -}}
{{- end -}}

{{/*
The value of setting .key in the Slurm configuration text .conf, from the last line that sets it, without a trailing
comment; "" when no line sets it. Slurm's keys are case-insensitive.
*/}}
{{- define "slurm-cluster.confGet" -}}
{{- $lines := regexFindAll (printf "(?im)^[ \\t]*%s[ \\t]*=[^\\n]*" .key) .conf -1 -}}
{{- if $lines -}}
{{- $value := regexReplaceAll (printf "(?i)^[ \\t]*%s[ \\t]*=" .key) (last $lines) "" -}}
{{- regexReplaceAll "#.*$" $value "" | trim -}}
{{- end -}}
{{- end -}}

{{/* The configuration text .conf without the lines that set any of .keys. */}}
{{- define "slurm-cluster.confDrop" -}}
{{- regexReplaceAll (printf "(?im)^[ \\t]*(%s)[ \\t]*=[^\\n]*(\\n|$)" (join "|" .keys)) .conf "" -}}
{{- end -}}

{{/* The configuration text .conf with .key set to .value on a line of its own, in place of the lines that set it. */}}
{{- define "slurm-cluster.confSet" -}}
{{- $conf := include "slurm-cluster.confDrop" (dict "conf" .conf "keys" (list .key)) -}}
{{- if and $conf (not (hasSuffix "\n" $conf)) -}}{{- $conf = printf "%s\n" $conf -}}{{- end -}}
{{- printf "%s%s=%s\n" $conf .key .value -}}
{{- end -}}

{{/* A YAML list of notes, one per key of the map .v that is not in .keys: such a value is not passed on. */}}
{{- define "slurm-cluster.unknownKeys" -}}
{{- $notes := list -}}
{{- range $key, $_ := .v -}}
{{- if not (has $key $.keys) -}}
{{- $notes = append $notes (printf "%s.%s is not a SlurmCluster setting: left out" $.path $key) -}}
{{- end -}}
{{- end -}}
{{- toYaml $notes -}}
{{- end -}}

{{- define "slurm-cluster.podKeys" -}}
{{- toYaml (list "image" "imagePullSecrets" "nodeSelector" "tolerations" "affinity" "resources" "podSecurityContext" "securityContext" "volumes" "volumeMounts") -}}
{{- end -}}

{{/*
One component's settings (.c, at value path .path) as the SlurmCluster spec takes them: only the keys .keys, empty
values left out, and a volume of ACK's ConfigMap "jwt" (the JWT key) taken from the JWT Secret .jwtSecret instead.
A worker group (.worker) that names no memory requests .defaultMemory. Gives {spec, notes} as YAML.
*/}}
{{- define "slurm-cluster.component" -}}
{{- $spec := dict -}}
{{- $notes := include "slurm-cluster.unknownKeys" (dict "v" .c "path" .path "keys" .keys) | fromYamlArray -}}
{{- range $key, $value := .c -}}
{{- if has $key $.keys -}}
{{- if or (kindIs "bool" $value) (kindIs "float64" $value) (kindIs "int64" $value) (kindIs "int" $value) -}}
{{- $_ := set $spec $key $value -}}
{{- else if not (empty $value) -}}
{{- $_ := set $spec $key $value -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if $spec.volumes -}}
{{- $volumes := list -}}
{{- range $volume := $spec.volumes -}}
{{- $cm := $volume.configMap | default dict -}}
{{- $keys := list -}}
{{- range $item := ($cm.items | default list) -}}{{- $keys = append $keys $item.key -}}{{- end -}}
{{- if and $volume.configMap (or (eq ($cm.name | default "") "jwt") (has "jwt_hs256.key" $keys)) -}}
{{- $secret := dict "secretName" $.jwtSecret "defaultMode" 288 -}}
{{- if $cm.items -}}{{- $_ := set $secret "items" $cm.items -}}{{- end -}}
{{- $volumes = append $volumes (dict "name" $volume.name "secret" $secret) -}}
{{- $notes = append $notes (printf "%s.volumes[%s]: ACK's ConfigMap %s (the JWT key) is the Secret %s here, mode 0440: keys never go in ConfigMaps" $.path $volume.name ($cm.name | default "") $.jwtSecret) -}}
{{- else -}}
{{- $volumes = append $volumes $volume -}}
{{- end -}}
{{- end -}}
{{- $_ := set $spec "volumes" $volumes -}}
{{- end -}}
{{- if .worker -}}
{{- $resources := $spec.resources | default dict -}}
{{- if not (or (dig "limits" "memory" "" $resources) (dig "requests" "memory" "" $resources)) -}}
{{- $requests := deepCopy ($resources.requests | default dict) -}}
{{- $_ := set $requests "memory" .defaultMemory -}}
{{- $resources = set (deepCopy $resources) "requests" $requests -}}
{{- $_ := set $spec "resources" $resources -}}
{{- $notes = append $notes (printf "%s names no memory: its pods request %s (defaultWorkerMemory), which is each Slurm node's RealMemory, since slurmd in a pod sees the host's memory" .path .defaultMemory) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "spec" $spec "notes" $notes) -}}
{{- end -}}

{{/*
A database of the SlurmCluster spec (accounting or jobComp), from the values .v when they name a host, else from the
settings .conf names under the keys .host, .port, .user, .loc and .pass. Gives {db, password, notes} as YAML, with no
db when no host is named.
*/}}
{{- define "slurm-cluster.database" -}}
{{- $db := dict -}}
{{- $password := "" -}}
{{- $notes := list -}}
{{- $fromConf := include "slurm-cluster.confGet" (dict "conf" .conf "key" .host) -}}
{{- if or .v.host $fromConf -}}
{{- $loc := "" -}}
{{- if .v.host -}}
{{- $db = dict "host" .v.host "port" (int .v.port) "user" .v.user -}}
{{- $loc = .v.database -}}
{{- $password = .v.password -}}
{{- else -}}
{{- $port := include "slurm-cluster.confGet" (dict "conf" .conf "key" .port) | default "3306" -}}
{{- $db = dict "host" $fromConf "port" (atoi $port) "user" (.v.user | default (include "slurm-cluster.confGet" (dict "conf" .conf "key" .user))) -}}
{{- $loc = .v.database | default (include "slurm-cluster.confGet" (dict "conf" .conf "key" .loc)) -}}
{{- $password = .v.password | default (include "slurm-cluster.confGet" (dict "conf" .conf "key" .pass)) -}}
{{- end -}}
{{- if not $db.user -}}
{{- fail (printf "%s.user (or %s= in %s) is required once a database host is named" .path .user .file) -}}
{{- end -}}
{{- if contains "/" $loc -}}
{{- $notes = append $notes (printf "%s=%s is a file path, which %s takes as a database name: left out, so Slurm's default database is used" .loc $loc .file) -}}
{{- else if $loc -}}
{{- $_ := set $db "database" $loc -}}
{{- end -}}
{{- if .v.passwordSecretRef.name -}}
{{- $_ := set $db "passwordSecretRef" (dict "name" .v.passwordSecretRef.name "key" .v.passwordSecretRef.key) -}}
{{- $password = "" -}}
{{- else if $password -}}
{{- $_ := set $db "passwordSecretRef" (dict "name" .passwordSecret "key" .path) -}}
{{- else -}}
{{- fail (printf "%s: the database %s names no password: set %s.passwordSecretRef.name (an existing Secret) or %s.password" .path $db.host .path .path) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "db" $db "password" $password "notes" $notes) -}}
{{- end -}}
