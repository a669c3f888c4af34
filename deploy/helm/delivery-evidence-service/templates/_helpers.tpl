{{/* The chart's name, or nameOverride. */}}
{{- define "des.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's full name: fullnameOverride, else <release>-<chart> (the release alone when it contains the chart's name). */}}
{{- define "des.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The name of one component's objects: <fullname>-<component>. */}}
{{- define "des.componentName" -}}
{{- printf "%s-%s" (include "des.fullname" .root | trunc 52 | trimSuffix "-") .component }}
{{- end }}

{{- define "des.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "des.labels" -}}
helm.sh/chart: {{ include "des.chart" . }}
{{ include "des.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: delivery-evidence-service
{{- end }}

{{- define "des.selectorLabels" -}}
app.kubernetes.io/name: {{ include "des.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component's objects; arguments: dict "root" $ "component" "api". */}}
{{- define "des.componentLabels" -}}
{{ include "des.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "des.componentSelectorLabels" -}}
{{ include "des.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "des.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "des.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret holding the service key and the connection strings. */}}
{{- define "des.secretName" -}}
{{- default (include "des.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "des.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Where the service key's file is mounted (DES_SERVICE_KEY_FILE). */}}
{{- define "des.serviceKeyDir" -}}
/var/run/secrets/delivery-evidence-service
{{- end }}

{{/*
The pod template of one component. Arguments: dict
  "root" $, "component" "api", "values" .Values.api, "args" (list ...),
  "port" the container port that serves /health/*, "portName" its name,
  "preStopSleepSeconds" (API only).
*/}}
{{- define "des.podTemplate" -}}
{{- $root := .root }}
{{- $v := $root.Values }}
{{- $grace := int $v.config.terminationGracePeriodSeconds }}
{{- $pause := int (default 0 .preStopSleepSeconds) }}
{{- if le (mul $grace 1000) (add (int $v.config.shutdownTimeoutMs) (mul $pause 1000)) }}
{{- fail (printf "config.terminationGracePeriodSeconds (%d s) must be longer than config.shutdownTimeoutMs (%d ms) plus the API's preStop pause (%d s)" $grace (int $v.config.shutdownTimeoutMs) $pause) }}
{{- end -}}
metadata:
  labels:
    {{- include "des.componentSelectorLabels" . | nindent 4 }}
  {{- $annotations := deepCopy (default dict .values.podAnnotations) }}
  {{- if not $v.secrets.existingSecret }}
  {{- /* The chart's Secret changed (connection strings): the pods start again with the new values. */}}
  {{- $_ := set $annotations "checksum/secret" (omit $v.secrets "serviceKey" | toJson | sha256sum) }}
  {{- end }}
  {{- with $annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "des.serviceAccountName" $root }}
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: {{ $grace }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml $v.podSecurityContext | nindent 4 }}
  containers:
    - name: {{ .component }}
      image: {{ include "des.image" $root | quote }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      # args, not command: the image's entrypoint (tini) stays PID 1.
      args:
        {{- toYaml .args | nindent 8 }}
      ports:
        - name: {{ .portName }}
          containerPort: {{ .port }}
          protocol: TCP
      env:
        - name: DES_DATA_DIR
          value: /data
        - name: DES_SERVICE_KEY_FILE
          value: {{ printf "%s/%s" (include "des.serviceKeyDir" $root) $v.secrets.keys.serviceKey | quote }}
        - name: KURRENTDB_URL
          valueFrom:
            secretKeyRef:
              name: {{ include "des.secretName" $root }}
              key: {{ $v.secrets.keys.kurrentdbUrl }}
        - name: MONGODB_URL
          valueFrom:
            secretKeyRef:
              name: {{ include "des.secretName" $root }}
              key: {{ $v.secrets.keys.mongodbUrl }}
        - name: REDIS_URL
          valueFrom:
            secretKeyRef:
              name: {{ include "des.secretName" $root }}
              key: {{ $v.secrets.keys.redisUrl }}
        - name: LOG_LEVEL
          value: {{ $v.config.logLevel | quote }}
        - name: DES_SHUTDOWN_TIMEOUT_MS
          value: {{ $v.config.shutdownTimeoutMs | int | quote }}
        - name: PORT
          value: "8080"
        - name: DES_OPS_PORT
          value: {{ $v.config.opsPort | int | quote }}
        {{- with $v.config.publicUrl }}
        - name: DES_PUBLIC_URL
          value: {{ . | quote }}
        {{- end }}
        {{- range $name, $value := $v.config.env }}
        - name: {{ $name }}
          value: {{ $value | toString | quote }}
        {{- end }}
        {{- with $v.config.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      startupProbe:
        httpGet:
          path: /health/live
          port: {{ .portName }}
        periodSeconds: 5
        failureThreshold: 36
      livenessProbe:
        httpGet:
          path: /health/live
          port: {{ .portName }}
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /health/ready
          port: {{ .portName }}
        periodSeconds: 5
        timeoutSeconds: 5
        failureThreshold: 3
      {{- if gt $pause 0 }}
      lifecycle:
        preStop:
          exec:
            command: ["sleep", {{ $pause | toString | quote }}]
      {{- end }}
      resources:
        {{- toYaml .values.resources | nindent 8 }}
      securityContext:
        {{- toYaml $v.securityContext | nindent 8 }}
      volumeMounts:
        - name: tmp
          mountPath: /tmp
        - name: data
          mountPath: /data
        - name: service-key
          mountPath: {{ include "des.serviceKeyDir" $root }}
          readOnly: true
  volumes:
    - name: tmp
      emptyDir:
        sizeLimit: {{ $v.volumes.tmpSizeLimit }}
    - name: data
      {{- if and (eq .component "api") .values.persistence.existingClaim }}
      persistentVolumeClaim:
        claimName: {{ .values.persistence.existingClaim }}
      {{- else }}
      emptyDir:
        sizeLimit: {{ $v.volumes.dataSizeLimit }}
      {{- end }}
    - name: service-key
      secret:
        secretName: {{ include "des.secretName" $root }}
        # Readable by the pod's group (fsGroup) only; the other keys stay out of the file system.
        defaultMode: 0440
        items:
          - key: {{ $v.secrets.keys.serviceKey }}
            path: {{ $v.secrets.keys.serviceKey }}
  {{- with .values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .values.topologySpreadConstraints }}
  topologySpreadConstraints:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/* A PodDisruptionBudget; arguments as for des.podTemplate. */}}
{{- define "des.pdb" -}}
{{- $pdb := .values.podDisruptionBudget }}
{{- if $pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "des.componentName" . }}
  labels:
    {{- include "des.componentLabels" . | nindent 4 }}
spec:
  {{- if $pdb.minAvailable }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ default 1 $pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "des.componentSelectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
