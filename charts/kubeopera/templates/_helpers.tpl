{{/* The product expects its own namespace: RBAC, the HostCluster objects
and the Secrets it reads are all in kubeopera-system. */}}
{{- define "kubeopera.checkNamespace" -}}
{{- if ne .Release.Namespace "kubeopera-system" -}}
{{- fail "install KubeOpera into the namespace kubeopera-system (helm install --namespace kubeopera-system --create-namespace)" -}}
{{- end -}}
{{- end -}}

{{- define "kubeopera.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "kubeopera.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: kubeopera
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version }}
{{- end -}}

{{/* Pod and container security: non-root, read-only root filesystem, no
privilege escalation, no capabilities, seccomp RuntimeDefault. */}}
{{- define "kubeopera.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "kubeopera.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* The database URL and the encryption key, from Secrets. */}}
{{- define "kubeopera.secretEnv" -}}
- name: KUBEOPERA_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret: name the Secret holding the PostgreSQL URL" .Values.database.existingSecret }}
      key: {{ .Values.database.urlKey }}
- name: KUBEOPERA_ENCRYPTION_KEY
  valueFrom:
    secretKeyRef:
      name: {{ required "encryptionKey.existingSecret: name the Secret holding the encryption key" .Values.encryptionKey.existingSecret }}
      key: {{ .Values.encryptionKey.key }}
{{- end -}}

{{- define "kubeopera.volumes" -}}
volumes:
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}

{{- define "kubeopera.volumeMounts" -}}
volumeMounts:
- name: data
  mountPath: /var/lib/kubeopera
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "kubeopera.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* An egress rule to a destination of networkPolicy: its pods
(podSelector, with namespaceSelector for another namespace) when a selector
is set, else its cidrs, on its TCP ports. A destination with neither renders
no rule (an egress rule without peers would admit every address). */}}
{{- define "kubeopera.egressRule" -}}
{{- $peers := list -}}
{{- if or .podSelector .namespaceSelector -}}
{{- $peer := dict -}}
{{- with .podSelector }}{{ $_ := set $peer "podSelector" (dict "matchLabels" .) }}{{ end -}}
{{- with .namespaceSelector }}{{ $_ := set $peer "namespaceSelector" (dict "matchLabels" .) }}{{ end -}}
{{- $peers = append $peers $peer -}}
{{- else -}}
{{- range .cidrs }}{{ $peers = append $peers (dict "ipBlock" (dict "cidr" .)) }}{{ end -}}
{{- end -}}
{{- $ports := list -}}
{{- range .ports }}{{ $ports = append $ports (dict "protocol" "TCP" "port" (int .)) }}{{ end -}}
{{- if $peers -}}
{{- toYaml (list (dict "to" $peers "ports" $ports)) -}}
{{- end -}}
{{- end -}}

{{/* Egress to the cluster's DNS, UDP and TCP. */}}
{{- define "kubeopera.egressDNS" -}}
- to:
  - namespaceSelector:
      matchLabels:
        {{- toYaml .namespaceSelector | nindent 8 }}
    podSelector:
      matchLabels:
        {{- toYaml .podSelector | nindent 8 }}
  ports:
  - {protocol: UDP, port: 53}
  - {protocol: TCP, port: 53}
{{- end -}}
