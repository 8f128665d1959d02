{{/* Chart name, overridable. */}}
{{- define "onceguard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: the release name, with the chart name unless the release already contains it. */}}
{{- define "onceguard.fullname" -}}
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

{{- define "onceguard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "onceguard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "onceguard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "onceguard.labels" -}}
helm.sh/chart: {{ include "onceguard.chart" . }}
{{ include "onceguard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: onceguard
{{- end }}

{{- define "onceguard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "onceguard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "onceguard.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* The fewest replicas that run: the autoscaler's minimum, or replicaCount. */}}
{{- define "onceguard.minReplicas" -}}
{{- if .Values.autoscaling.enabled }}{{ .Values.autoscaling.minReplicas }}{{ else }}{{ .Values.replicaCount }}{{ end }}
{{- end }}

{{/* The environment variable Quarkus reads for a property: onceguard.jobs.outbox-relay.every -> ONCEGUARD_JOBS_OUTBOX_RELAY_EVERY */}}
{{- define "onceguard.envName" -}}
{{- regexReplaceAll "[^A-Za-z0-9]" . "_" | upper }}
{{- end }}

{{/* A schedule or duration (30s, 10m, 1h, 1d, 500ms) in whole seconds, at least 1. */}}
{{- define "onceguard.seconds" -}}
{{- $value := toString . }}
{{- $number := regexFind "^[0-9]+" $value | int }}
{{- $unit := trimPrefix (regexFind "^[0-9]+" $value) $value }}
{{- $factor := dict "ms" 0 "s" 1 "m" 60 "h" 3600 "d" 86400 }}
{{- if not (hasKey $factor $unit) }}
{{- fail (printf "cannot read %q as a duration (use a number with ms, s, m, h or d)" $value) }}
{{- end }}
{{- if eq $unit "ms" }}
{{- max 1 (div $number 1000) }}
{{- else }}
{{- mul $number (get $factor $unit) }}
{{- end }}
{{- end }}

{{/* The label selector of this release's series in alert expressions. */}}
{{- define "onceguard.seriesSelector" -}}
namespace="{{ .Release.Namespace }}"
{{- end }}
