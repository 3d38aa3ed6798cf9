# An offline stand-in for aws-vanilla's modules (KUBEOPERA_TERRAFORM_MODULE_DIR):
# the same inputs and root outputs, built from terraform_data so it applies
# here without provider downloads or AWS.
terraform {
  backend "kubernetes" {}
}

variable "cluster_id" { type = string }
variable "region" { type = string }
variable "controlPlaneCount" { type = string }
variable "nodeCount" { type = string }
variable "instanceType" { type = string }
variable "kubernetesVersion" { type = string }
variable "credentialRef" { type = string }
variable "apiAllowedCIDRs" { type = string }
variable "nodeKubernetesVersion" {
  type    = string
  default = ""
}
variable "relay_nonce" {
  type    = string
  default = ""
}

resource "terraform_data" "vpc" {
  input = "kubeopera-${var.cluster_id}-${var.region}"
}

resource "terraform_data" "control_plane" {
  count = tonumber(var.controlPlaneCount)
  input = "${terraform_data.vpc.output}-cp-${count.index}"
}

# The workers' Auto Scaling Group: its desired, min and max size.
resource "terraform_data" "workers" {
  input = { size = tonumber(var.nodeCount), type = var.instanceType }
}

output "worker_count" {
  value = terraform_data.workers.output.size
}

output "control_plane_endpoint" {
  value = terraform_data.control_plane[0].output
}

output "kubeconfig_parameter" {
  value = "/kubeopera/${var.cluster_id}/admin-kubeconfig"
}

output "ssm_prefix" {
  value = var.relay_nonce == "" ? "/kubeopera/${var.cluster_id}" : "/kubeopera/${var.cluster_id}/${var.relay_nonce}"
}
