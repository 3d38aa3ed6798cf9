variable "name" {
  description = "Name of the cluster's resources, kubeopera-<cluster-id>."
  type        = string
}

variable "cluster_name" {
  description = "Kubernetes cluster name in the kubernetes.io/cluster/<name> subnet tags that EKS and load balancer controllers look for."
  type        = string
}

variable "cidr" {
  description = "IPv4 CIDR of the VPC. Subnets are /20 inside a /16: public ones from the first, private ones from the ninth."
  type        = string
  default     = "10.0.0.0/16"
  validation {
    condition     = can(cidrhost(var.cidr, 0))
    error_message = "cidr must be an IPv4 CIDR such as 10.0.0.0/16."
  }
}

variable "az_count" {
  description = "Number of availability zones to spread the subnets over; one public and one private subnet in each."
  type        = number
  default     = 2
  validation {
    condition     = var.az_count >= 1 && var.az_count <= 8 && floor(var.az_count) == var.az_count
    error_message = "az_count must be a whole number from 1 to 8."
  }
}

variable "exclude_zone_ids" {
  description = "Availability zone IDs (e.g. use1-az3) to leave out: zones where a consumer such as EKS cannot place its resources."
  type        = list(string)
  default     = []
}

variable "zone_ids" {
  description = "Availability zone IDs (e.g. eun1-az1) of the subnets, at least az_count, in order: the zones that offer the cluster's instance type. Empty means the region's first available zones not in exclude_zone_ids."
  type        = list(string)
  default     = []
}
