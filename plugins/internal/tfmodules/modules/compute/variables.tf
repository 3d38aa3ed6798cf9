variable "name" {
  description = "Name of the cluster's resources, kubeopera-<cluster-id>."
  type        = string
}

variable "cluster_id" {
  description = "KubeOpera cluster ID; names the SSM relay path /kubeopera/<cluster_id>/."
  type        = string
}

variable "region" {
  description = "AWS region, for the relay parameters' ARNs and the nodes' aws CLI."
  type        = string
}

variable "control_plane_count" {
  description = "Number of control-plane instances, each with a stacked etcd member."
  type        = number
  default     = 1
  validation {
    condition     = var.control_plane_count >= 1 && var.control_plane_count <= 7 && var.control_plane_count % 2 == 1
    error_message = "control_plane_count must be 1, 3, 5 or 7. Each control plane runs an etcd member and etcd needs a majority (quorum) to work: an even count tolerates no more failures than the odd count below it (4 members survive 1 loss, like 3), so it only adds a member that can break quorum."
  }
}

variable "node_count" {
  description = "Number of worker nodes (the Auto Scaling Group's size). With 0, the control planes accept workloads."
  type        = number
  default     = 2
  validation {
    condition     = var.node_count >= 0 && floor(var.node_count) == var.node_count
    error_message = "node_count must be a whole number from 0."
  }
}

variable "instance_type" {
  description = "EC2 instance type of every node, e.g. t3.medium; arm64 types get the arm64 Ubuntu image."
  type        = string
}

variable "kubernetes_version" {
  description = "Kubernetes minor version, e.g. 1.36."
  type        = string
}

variable "kubernetes_patch" {
  description = "Exact Kubernetes release the nodes install, e.g. 1.36.2; empty for the minor's newest."
  type        = string
  default     = ""
}

variable "bootstrap_pins" {
  description = "The upstream parts the nodes install (the bootstrap module's pins), from the plugins' table of pinned parts."
  type        = map(string)
}

variable "vpc_id" {
  description = "VPC of the cluster (for the NLB's target group)."
  type        = string
}

variable "private_subnet_ids" {
  description = "Private subnets the nodes and the internal NLB go in; control-plane members are spread over them."
  type        = list(string)
}

variable "vpc_cidr" {
  description = "IPv4 CIDR of the VPC: the public NLB forwards to the control planes inside it."
  type        = string
}

variable "public_subnet_ids" {
  description = "Public subnets the internet-facing API load balancer goes in."
  type        = list(string)
}

variable "api_allowed_cidrs" {
  description = "IPv4 CIDRs allowed to reach the Kubernetes API through the public NLB. No default: 0.0.0.0/0 must be asked for."
  type        = list(string)
  validation {
    condition     = length(var.api_allowed_cidrs) >= 1 && alltrue([for c in var.api_allowed_cidrs : can(cidrhost(c, 0))])
    error_message = "api_allowed_cidrs must list at least one IPv4 CIDR, such as the management side's egress address 203.0.113.7/32."
  }
}

variable "control_plane_security_group_id" {
  description = "Security group of the control-plane members."
  type        = string
}

variable "worker_security_group_id" {
  description = "Security group of the workers."
  type        = string
}

variable "tags" {
  description = "Tags for what the provider's default_tags do not reach: instances and volumes launched by the Auto Scaling Group."
  type        = map(string)
  default     = {}
}

variable "root_volume_size" {
  description = "Size of each node's root volume in GiB."
  type        = number
  default     = 30
}

variable "poll_interval_seconds" {
  description = "Seconds between two reads of the SSM relay by a waiting node."
  type        = number
  default     = 10
}

variable "wait_timeout_seconds" {
  description = "How long a node waits on the relay (for member 0, or its predecessor) before it reports a failure."
  type        = number
  default     = 3600
}
