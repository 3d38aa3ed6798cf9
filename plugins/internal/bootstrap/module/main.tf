# Renders the user_data of one KubeOpera node. It needs no provider: only
# templatefile() and file(), so it can be rendered (and tested) anywhere.
#
# The script is a small template header that sets KO_* shell variables from
# the inputs below, followed by plain bash read with file(): the body is never
# a template, so it uses shell ${...} freely and needs no $${ escaping.
# Every input that reaches the header is validated against a character set
# without quotes, $, backslashes or backticks, so it cannot break out of the
# single-quoted assignments.

terraform {
  required_version = ">= 1.5.0"
}

variable "cluster_id" {
  description = "KubeOpera cluster ID; the relay lives under /kubeopera/<cluster_id>/ in SSM Parameter Store."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]*$", var.cluster_id))
    error_message = "cluster_id must be lowercase letters, digits and dashes."
  }
}

variable "relay_nonce" {
  description = "Per-provision nonce in the relay path (/kubeopera/<cluster_id>/<relay_nonce>), so a cluster re-created under the same ID never reads an old cluster's markers or join data. Empty: no nonce."
  type        = string
  default     = ""
  validation {
    condition     = can(regex("^[a-z0-9]*$", var.relay_nonce))
    error_message = "relay_nonce must be lowercase letters and digits."
  }
}

variable "region" {
  description = "AWS region of the SSM parameters, e.g. eu-north-1."
  type        = string
  validation {
    condition     = can(regex("^[a-z0-9-]+$", var.region))
    error_message = "region must be an AWS region name such as eu-north-1."
  }
}

variable "role" {
  description = "control-plane or worker."
  type        = string
  validation {
    condition     = contains(["control-plane", "worker"], var.role)
    error_message = "role must be control-plane or worker."
  }
}

variable "index" {
  description = "Control-plane member index: 0 runs kubeadm init, i > 0 joins after member i-1. Ignored for workers."
  type        = number
  default     = 0
  validation {
    condition     = var.index >= 0 && floor(var.index) == var.index
    error_message = "index must be a whole number from 0."
  }
}

variable "kubernetes_version" {
  description = "Kubernetes minor version, e.g. 1.36; selects the pkgs.k8s.io repository."
  type        = string
  validation {
    condition     = can(regex("^1\\.[0-9]+$", var.kubernetes_version))
    error_message = "kubernetes_version must be a minor version such as 1.33."
  }
}

variable "kubernetes_patch" {
  description = "Exact Kubernetes release to install, e.g. 1.36.2 (a release of kubernetes_version); empty installs the minor's newest."
  type        = string
  default     = ""
  validation {
    condition     = can(regex("^(1\\.[0-9]+\\.[0-9]+)?$", var.kubernetes_patch))
    error_message = "kubernetes_patch must be empty or a release such as 1.36.2."
  }
}

variable "arch" {
  description = "CPU architecture of the node as Debian and the containerd releases name it: amd64 or arm64."
  type        = string
  default     = "amd64"
  validation {
    condition     = contains(["amd64", "arm64"], var.arch)
    error_message = "arch must be amd64 or arm64."
  }
}

variable "pins" {
  description = "The upstream parts the node installs, from the plugins' table of pinned parts (package upstream): containerd_version, runc_version, cni_plugins_version, pod_cidr (the flannel manifest's network), flannel_manifest_url, flannel_manifest_sha256, cloud_controller_version, cloud_controller_image, ebs_csi_driver_ref."
  type        = map(string)
  validation {
    condition = alltrue([for k in ["containerd_version", "runc_version", "cni_plugins_version", "pod_cidr", "flannel_manifest_url",
    "flannel_manifest_sha256", "cloud_controller_version", "cloud_controller_image", "ebs_csi_driver_ref"] : can(regex("^[A-Za-z0-9./_:-]+$", var.pins[k]))])
    error_message = "pins must hold every part the node installs, each of letters, digits and ./_:- only."
  }
}

variable "endpoint_override" {
  description = "Host name of the API endpoint (the NLB); empty makes member 0 use its own private IP. Joining nodes read the endpoint from the relay."
  type        = string
  default     = ""
  validation {
    condition     = can(regex("^[A-Za-z0-9.-]*$", var.endpoint_override))
    error_message = "endpoint_override must be a DNS name or an IP address."
  }
}

variable "public_endpoint" {
  description = "Public host name of the API (the internet-facing NLB): member 0 adds it to the API server certificate's SANs and writes it into the published manager kubeconfig. Empty: the kubeconfig names the endpoint nodes use."
  type        = string
  default     = ""
  validation {
    condition     = can(regex("^[A-Za-z0-9.-]*$", var.public_endpoint))
    error_message = "public_endpoint must be a DNS name or an IP address."
  }
}

variable "kubeconfig_kms_key" {
  description = "ARN of the KMS key member 0 encrypts the published manager kubeconfig with; empty uses the AWS-managed alias/aws/ssm."
  type        = string
  default     = ""
  validation {
    condition     = can(regex("^[A-Za-z0-9:/_-]*$", var.kubeconfig_kms_key))
    error_message = "kubeconfig_kms_key must be a KMS key ARN."
  }
}

variable "untaint_control_plane" {
  description = "Let workloads run on control-plane nodes; set when the cluster has no workers."
  type        = bool
  default     = false
}

variable "poll_interval_seconds" {
  description = "Seconds between two reads of the relay while waiting."
  type        = number
  default     = 10
  validation {
    condition     = var.poll_interval_seconds > 0
    error_message = "poll_interval_seconds must be positive."
  }
}

variable "wait_timeout_seconds" {
  description = "How long one wait on the relay may last before the node gives up and reports a failure."
  type        = number
  default     = 3600
  validation {
    condition     = var.wait_timeout_seconds >= 1 && floor(var.wait_timeout_seconds) == var.wait_timeout_seconds
    error_message = "wait_timeout_seconds must be a whole number of seconds, at least 1."
  }
}

locals {
  ssm_prefix = var.relay_nonce == "" ? "/kubeopera/${var.cluster_id}" : "/kubeopera/${var.cluster_id}/${var.relay_nonce}"
  # The relay's parameter names; the scripts get them from the header, so
  # they are spelled here only (and in bootstrap.go, checked by its tests).
  parameters = {
    worker_join        = "${local.ssm_prefix}/join/worker"
    control_plane_join = "${local.ssm_prefix}/join/control-plane"
    # Holds the manager's token kubeconfig, not admin.conf; the name is
    # kept so the plugin reads it as before.
    admin_kubeconfig = "${local.ssm_prefix}/admin-kubeconfig"
    members          = "${local.ssm_prefix}/members"
    workers          = "${local.ssm_prefix}/workers"
  }
  header = templatefile("${path.module}/header.sh.tftpl", {
    cluster_id            = var.cluster_id
    region                = var.region
    role                  = var.role
    index                 = var.index
    kubernetes_version    = var.kubernetes_version
    kubernetes_patch      = var.kubernetes_patch
    arch                  = var.arch
    pins                  = var.pins
    endpoint_override     = var.endpoint_override
    public_endpoint       = var.public_endpoint
    kubeconfig_kms_key    = var.kubeconfig_kms_key
    untaint_control_plane = var.untaint_control_plane
    poll_interval_seconds = var.poll_interval_seconds
    wait_timeout_seconds  = var.wait_timeout_seconds
    parameters            = local.parameters
  })
  # Whole-line comments are dropped: they are for readers of these files,
  # and EC2 takes at most 16 KB of (gzipped) user_data. No heredoc in the
  # body has a line starting with #.
  body = [for f in ["lib.sh", "host.sh", "cloud.sh", "credential.sh", "control-plane.sh", "worker.sh"] :
  replace(file("${path.module}/${f}"), "/(?m)^[ \t]*#.*\n/", "")]
}

output "script" {
  description = "The complete user_data script (bash); gzip it with base64gzip() for EC2."
  value       = join("\n", concat([local.header], local.body, ["main \"$@\"\n"]))
}

output "ssm_prefix" {
  description = "Parameter Store path every relay parameter of the cluster is under."
  value       = local.ssm_prefix
}

output "parameters" {
  description = "Relay parameter names: worker_join, control_plane_join, admin_kubeconfig, and the members and workers path prefixes."
  value       = local.parameters
}
