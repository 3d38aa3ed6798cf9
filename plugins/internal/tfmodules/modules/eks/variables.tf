variable "name" {
  description = "Name of the EKS cluster and prefix of its other resources, kubeopera-<cluster-id>."
  type        = string
}

variable "kubernetes_version" {
  description = "Kubernetes minor version of the cluster (and of its node group unless node_version says otherwise), e.g. 1.36."
  type        = string
}

variable "node_version" {
  description = "Kubernetes minor version of the managed node group; null means kubernetes_version. An upgrade applies twice: the control plane first with the nodes left here on the old minor, then the nodes (EKS refuses nodes newer than their control plane)."
  type        = string
  default     = null
}

variable "control_plane_subnet_ids" {
  description = "Private subnets for the cluster's network interfaces, in at least two availability zones; the public API endpoint does not need public subnets."
  type        = list(string)
  validation {
    condition     = length(var.control_plane_subnet_ids) >= 2
    error_message = "EKS needs subnets in at least two availability zones; use az_count >= 2."
  }
}

variable "node_subnet_ids" {
  description = "Private subnets of the managed node group."
  type        = list(string)
}

variable "node_count" {
  description = "Size of the managed node group."
  type        = number
  validation {
    condition     = var.node_count >= 1 && floor(var.node_count) == var.node_count
    error_message = "node_count must be a whole number from 1: a managed node group cannot be empty here."
  }
}

variable "instance_type" {
  description = "EC2 instance type of the nodes, e.g. t3.medium; arm64 types get the arm64 AL2023 image."
  type        = string
}

variable "endpoint_public_access" {
  description = "Whether the API has a public endpoint (open to public_access_cidrs); KubeOpera needs it unless it runs inside the VPC."
  type        = bool
}

variable "endpoint_private_access" {
  description = "Whether the API has a private endpoint inside the VPC, which the nodes then use."
  type        = bool
}

variable "public_access_cidrs" {
  description = "IPv4 CIDRs allowed to reach the public endpoint. No default: 0.0.0.0/0 must be asked for."
  type        = list(string)
  validation {
    condition     = alltrue([for c in var.public_access_cidrs : can(cidrhost(c, 0))])
    error_message = "public_access_cidrs must be IPv4 CIDRs such as 203.0.113.0/24."
  }
}

variable "ebs_csi_addon_version" {
  description = "Version of the aws-ebs-csi-driver EKS add-on, e.g. an EKS build such as vX.Y.Z-eksbuild.N (eks:DescribeAddonVersions lists them)."
  type        = string
}

variable "ebs_csi_configuration_values" {
  description = "configuration_values of the aws-ebs-csi-driver add-on, JSON; only keys of the add-on's own schema (eks:DescribeAddonConfiguration), which refuses the rest."
  type        = string
}

variable "addon_versions" {
  description = "Builds of the vpc-cni, kube-proxy and coredns EKS add-ons for kubernetes_version, by add-on name (eks:DescribeAddonVersions lists them)."
  type        = map(string)
}
