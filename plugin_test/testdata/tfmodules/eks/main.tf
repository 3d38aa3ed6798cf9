# An offline stand-in for aws-eks's modules (KUBEOPERA_TERRAFORM_MODULE_DIR):
# the same inputs and root outputs, from terraform_data.
terraform {
  backend "kubernetes" {}
}

variable "cluster_id" { type = string }
variable "region" { type = string }
variable "nodeCount" { type = string }
variable "instanceType" { type = string }
variable "kubernetesVersion" { type = string }
variable "credentialRef" { type = string }
variable "apiAllowedCIDRs" { type = string }
variable "endpointPublicAccess" { type = string }
variable "endpointPrivateAccess" { type = string }
variable "endpoint" {
  type    = string
  default = "https://ABCDEF0123456789.gr7.eu-north-1.eks.amazonaws.com"
}
variable "ca" {
  type    = string
  default = ""
}
# What an update's apply passes beside the inputs: the node group's minor
# (empty: the cluster's), as the real module's node_version.
variable "nodeKubernetesVersion" {
  type    = string
  default = ""
}
# Stands in for EC2 refusing more instances (capacity, quota) at apply
# time: a test lowers it to make an apply fail.
variable "max_nodes" {
  type    = number
  default = 100
}

resource "terraform_data" "cluster" {
  input = "kubeopera-${var.cluster_id}"
}

resource "terraform_data" "control_plane" {
  input = var.kubernetesVersion
}

# EKS refuses a node group newer than its control plane, and the instances
# it cannot get.
resource "terraform_data" "node_group" {
  input = {
    name    = "${terraform_data.cluster.output}-nodes"
    nodes   = tonumber(var.nodeCount)
    version = coalesce(var.nodeKubernetesVersion, var.kubernetesVersion)
  }
  lifecycle {
    precondition {
      condition     = tonumber(split(".", coalesce(var.nodeKubernetesVersion, var.kubernetesVersion))[1]) <= tonumber(split(".", terraform_data.control_plane.output)[1])
      error_message = "InvalidParameterException: the node group's Kubernetes version may not be newer than the cluster's ${terraform_data.control_plane.output}."
    }
    precondition {
      condition     = tonumber(var.nodeCount) <= var.max_nodes
      error_message = "InsufficientInstanceCapacity: EC2 has no capacity for ${var.nodeCount} nodes of ${var.instanceType}."
    }
  }
}

output "cluster_name" {
  value = terraform_data.cluster.output
}

output "control_plane_version" {
  value = terraform_data.control_plane.output
}

output "node_count" {
  value = terraform_data.node_group.output.nodes
}

output "node_version" {
  value = terraform_data.node_group.output.version
}

output "endpoint" {
  value = var.endpoint
}

output "certificate_authority_data" {
  value = var.ca
}
