variable "name" {
  description = "Name of the cluster's resources, kubeopera-<cluster-id>."
  type        = string
}

variable "vpc_id" {
  description = "VPC the security groups belong to."
  type        = string
}

variable "vpc_cidr" {
  description = "CIDR allowed to reach the Kubernetes API and NodePorts: the internal NLB and every node are inside it."
  type        = string
}
