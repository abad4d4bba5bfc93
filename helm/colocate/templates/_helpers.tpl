{{- /* Written by hand. The KubeSchedulerConfiguration of colocate-scheduler. */ -}}
{{- define "colocate.schedulerConfig" -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceNamespace: {{ .Release.Namespace }}
  resourceName: colocate-scheduler
profiles:
  - schedulerName: colocate-scheduler
extenders:
  # The copilot's Service; only the leading copilot is ready, so every call reaches the one that serializes binds.
  - urlPrefix: http://colocate.{{ .Release.Namespace }}.svc:80/scheduler
    filterVerb: filter
    prioritizeVerb: prioritize
    bindVerb: bind
    weight: 1
    nodeCacheCapable: true
    enableHTTPS: false
    httpTimeout: {{ .Values.app.scheduler.extenderTimeout }}
    # Never schedule without the copilot: a pod waits rather than risk a node Slurm also hands out.
    ignorable: false
{{- end }}

{{- /* Written by hand. The namespaces colocate serves, as colocate.operator.namespaces reads them. */ -}}
{{- define "colocate.servedNamespaces" -}}
{{- if .Values.app.watchAllNamespaces -}}
JOSDK_ALL_NAMESPACES
{{- else -}}
{{- join "," (.Values.app.watchNamespaces | default (list .Release.Namespace)) -}}
{{- end -}}
{{- end }}

{{- /* Written by hand. What colocate may do in a namespace it serves: the operator's objects and the copilot's
reads of a SlurmCluster's slurmrestd Service and JWT Secret, and exec into its slurmctld (Slurm 22.05 writes). */ -}}
{{- define "colocate.servedRules" -}}
- apiGroups: [""]
  resources: [secrets, configmaps, services]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [""]
  resources: [pods/exec]
  verbs: [create, get]
- apiGroups: [""]
  resources: [persistentvolumeclaims]
  verbs: [get, list, watch, create]
- apiGroups: [apps]
  resources: [statefulsets, deployments]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [colocate.dev]
  resources: [slurmclusters, slurmclusters/status, slurmclusters/finalizers]
  verbs: [get, list, watch, create, update, patch, delete]
{{- end }}

{{- /* Written by hand. The ConfigMap of app.externalSlurm, named after a hash of it: a change rolls the pod. */ -}}
{{- define "colocate.slurmConfigName" -}}
colocate-slurm-{{ .Values.app.externalSlurm | toJson | sha256sum | trunc 10 }}
{{- end }}
