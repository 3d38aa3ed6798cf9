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

resource "terraform_data" "cluster" {
  input = "kubeopera-${var.cluster_id}"
}

resource "terraform_data" "node_group" {
  input = "${terraform_data.cluster.output}-${var.nodeCount}"
}

output "cluster_name" {
  value = terraform_data.cluster.output
}

output "endpoint" {
  value = var.endpoint
}

output "certificate_authority_data" {
  value = var.ca
}
