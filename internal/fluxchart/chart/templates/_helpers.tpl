{{/* The image reference of a controller or the CLI, by tag or by digest. */}}
{{- define "template.image" -}}
{{- if eq (substr 0 7 .tag) "sha256:" -}}
{{- printf "%s@%s" .image .tag -}}
{{- else -}}
{{- printf "%s:%s" .image .tag -}}
{{- end -}}
{{- end -}}

{{/* The labels the community chart puts on every object. Note the
instance label: the release's namespace, not its name. */}}
{{- define "flux2.labels" -}}
app.kubernetes.io/instance: {{ .Release.Namespace | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: flux
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* A controller Deployment. Arguments (a dict): root (the chart's
context), name, values (the controller's values), args (controller-specific
flags), ports, readyPath and readyPort (the readiness probe), grace (seconds
to terminate), volumes (emptyDir names, each mounted at /<name>), strategy
(optional rollout strategy type). */}}
{{- define "flux2.controller" -}}
{{- $root := .root -}}
{{- $v := .values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app.kubernetes.io/component: {{ .name }}
    {{- include "flux2.labels" $root | nindent 4 }}
    control-plane: controller
    {{- with $v.labels }}{{ toYaml . | nindent 4 }}{{ end }}
  name: {{ .name }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: {{ .name }}
  {{- with .strategy }}
  strategy:
    type: {{ . }}
  {{- end }}
  template:
    metadata:
      {{- with $v.annotations }}
      annotations: {{ toYaml . | nindent 8 }}
      {{- end }}
      labels:
        app: {{ .name }}
        {{- with $v.labels }}{{ toYaml . | nindent 8 }}{{ end }}
    spec:
      automountServiceAccountToken: {{ $v.serviceAccount.automount }}
      containers:
      - args:
        {{- if and $root.Values.notificationController.create (ne .name "notification-controller") }}
        - --events-addr=http://notification-controller.$(RUNTIME_NAMESPACE).svc.{{ $root.Values.clusterDomain | default "cluster.local" }}./
        {{- end }}
        - --watch-all-namespaces={{ $root.Values.watchAllNamespaces }}
        - --log-level={{ $root.Values.logLevel | default "info" }}
        - --log-encoding=json
        - --enable-leader-election
        {{- range .args }}
        - {{ . }}
        {{- end }}
        {{- range $v.container.additionalArgs }}
        - {{ . }}
        {{- end }}
        env:
        - name: RUNTIME_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
        {{- with $v.extraEnv }}{{ toYaml . | nindent 8 }}{{ end }}
        image: {{ include "template.image" $v }}
        imagePullPolicy: {{ $v.imagePullPolicy | default "IfNotPresent" }}
        livenessProbe:
          httpGet:
            path: /healthz
            port: healthz
        name: manager
        ports: {{ toYaml .ports | nindent 8 }}
        readinessProbe:
          httpGet:
            path: {{ .readyPath }}
            port: {{ .readyPort }}
        {{- with $v.resources }}
        resources: {{ toYaml . | nindent 10 }}
        {{- end }}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities:
            drop:
            - ALL
          readOnlyRootFilesystem: true
          runAsUser: 65534
          runAsNonRoot: true
          seccompProfile:
            type: RuntimeDefault
        volumeMounts:
        {{- range .volumes }}
        - mountPath: /{{ . }}
          name: {{ . }}
        {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . | quote }}
      {{- end }}
      securityContext:
        fsGroup: 1337
      serviceAccountName: {{ .name }}
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets: {{ toYaml . | nindent 6 }}
      {{- end }}
      terminationGracePeriodSeconds: {{ .grace }}
      volumes:
      {{- range .volumes }}
      - emptyDir: {}
        name: {{ . }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity: {{ toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations: {{ toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
