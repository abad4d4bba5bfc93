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
