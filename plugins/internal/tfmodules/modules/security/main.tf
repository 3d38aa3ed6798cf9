# Security groups of a kubeadm cluster: one for the control-plane members
# (API server, stacked etcd), one for the workers. Only what a kubeadm
# cluster with flannel needs is open; etcd is reachable from control-plane
# members only.

# The cluster tag marks each node's one security group as the one the AWS
# cloud controller manager adds a load balancer's ingress rules to.
locals {
  cluster_tag = { "kubernetes.io/cluster/${var.name}" = "owned" }
}

resource "aws_security_group" "control_plane" {
  name        = "${var.name}-control-plane"
  description = "Control-plane members of ${var.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.cluster_tag, { Name = "${var.name}-control-plane" })
}

resource "aws_security_group" "worker" {
  name        = "${var.name}-worker"
  description = "Worker nodes of ${var.name}"
  vpc_id      = var.vpc_id
  tags        = merge(local.cluster_tag, { Name = "${var.name}-worker" })
}

locals {
  groups = {
    control_plane = aws_security_group.control_plane.id
    worker        = aws_security_group.worker.id
  }
  # Every (to, from) pair of the two groups.
  pairs = setproduct(keys(local.groups), keys(local.groups))
  # Traffic between nodes of the cluster, by source security group.
  peer_rules = merge(
    {
      etcd = {
        to          = "control_plane"
        from        = "control_plane"
        protocol    = "tcp"
        ports       = [2379, 2380]
        description = "etcd client and peer traffic between stacked etcd members"
      }
    },
    {
      for p in local.pairs : "kubelet-${p[0]}-from-${p[1]}" => {
        to          = p[0]
        from        = p[1]
        protocol    = "tcp"
        ports       = [10250, 10250]
        description = "kubelet API (logs, exec, metrics) from the ${p[1]} group"
      }
    },
    {
      for p in local.pairs : "vxlan-${p[0]}-from-${p[1]}" => {
        to          = p[0]
        from        = p[1]
        protocol    = "udp"
        ports       = [8472, 8472]
        description = "flannel VXLAN pod network from the ${p[1]} group"
      }
    },
  )
  # Traffic from anywhere in the VPC.
  vpc_rules = {
    api = {
      to          = "control_plane"
      protocol    = "tcp"
      ports       = [6443, 6443]
      description = "Kubernetes API from the VPC: the internal NLB (no client IP preservation) and every node"
    }
    nodeports = {
      to          = "worker"
      protocol    = "tcp"
      ports       = [30000, 32767]
      description = "NodePort services from the VPC"
    }
  }
}

resource "aws_vpc_security_group_ingress_rule" "peer" {
  for_each                     = local.peer_rules
  security_group_id            = local.groups[each.value.to]
  referenced_security_group_id = local.groups[each.value.from]
  ip_protocol                  = each.value.protocol
  from_port                    = each.value.ports[0]
  to_port                      = each.value.ports[1]
  description                  = each.value.description
  tags                         = { Name = "${var.name}-${each.key}" }
}

resource "aws_vpc_security_group_ingress_rule" "vpc" {
  for_each          = local.vpc_rules
  security_group_id = local.groups[each.value.to]
  cidr_ipv4         = var.vpc_cidr
  ip_protocol       = each.value.protocol
  from_port         = each.value.ports[0]
  to_port           = each.value.ports[1]
  description       = each.value.description
  tags              = { Name = "${var.name}-${each.key}" }
}

# Nodes reach package mirrors, the container registries and the SSM API
# through the NAT gateway.
resource "aws_vpc_security_group_egress_rule" "all" {
  for_each          = local.groups
  security_group_id = each.value
  cidr_ipv4         = "0.0.0.0/0"
  ip_protocol       = "-1"
  description       = "All outbound traffic"
  tags              = { Name = "${var.name}-${each.key}-egress" }
}
