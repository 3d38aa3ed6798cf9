# Load balancers in front of the API servers. Targets are registered by IP
# with client IP preservation off: a control-plane node that reaches the API
# through an NLB and lands on itself would otherwise see its own source
# address and drop the connection (NLB hairpinning). Both check HTTPS
# /readyz, which answers 200 only once the API server serves (plain TCP
# passes as soon as the port is open).
#
# internal: only with more than one control plane (nlb_count); the nodes'
# endpoint inside the VPC.
# public: always; internet-facing, in the public subnets, open to
# api_allowed_cidrs through its security group. KubeOpera reaches the
# cluster here, and the published admin kubeconfig names it.

locals {
  nlb_count = var.control_plane_count > 1 ? 1 : 0
  # NLB and target group names are limited to 32 characters; a cluster ID
  # (a UUID) does not fit, so the name is a hash and the Name tag says which
  # cluster it is.
  lb_name        = "ko-${substr(sha1(var.cluster_id), 0, 24)}"
  public_lb_name = "kp-${substr(sha1(var.cluster_id), 0, 24)}"
  api_health_check = {
    protocol            = "HTTPS"
    path                = "/readyz"
    matcher             = "200"
    port                = "traffic-port"
    interval            = 10
    healthy_threshold   = 2
    unhealthy_threshold = 2
  }
}

resource "aws_lb" "api" {
  count                            = local.nlb_count
  name                             = local.lb_name
  internal                         = true
  load_balancer_type               = "network"
  subnets                          = var.private_subnet_ids
  enable_cross_zone_load_balancing = true
  tags                             = { Name = "${var.name}-api" }
}

resource "aws_lb_target_group" "api" {
  count                = local.nlb_count
  name                 = local.lb_name
  port                 = 6443
  protocol             = "TCP"
  target_type          = "ip"
  vpc_id               = var.vpc_id
  preserve_client_ip   = false
  deregistration_delay = 30

  health_check {
    protocol            = local.api_health_check.protocol
    path                = local.api_health_check.path
    matcher             = local.api_health_check.matcher
    port                = local.api_health_check.port
    interval            = local.api_health_check.interval
    healthy_threshold   = local.api_health_check.healthy_threshold
    unhealthy_threshold = local.api_health_check.unhealthy_threshold
  }

  tags = { Name = "${var.name}-api" }
}

resource "aws_lb_listener" "api" {
  count             = local.nlb_count
  load_balancer_arn = aws_lb.api[0].arn
  port              = 6443
  protocol          = "TCP"

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.api[0].arn
  }
}

resource "aws_lb_target_group_attachment" "api" {
  count            = local.nlb_count == 1 ? var.control_plane_count : 0
  target_group_arn = aws_lb_target_group.api[0].arn
  target_id        = aws_instance.control_plane[count.index].private_ip
  port             = 6443
}

resource "aws_security_group" "api_public" {
  name        = "${var.name}-api-public"
  description = "Public Kubernetes API of ${var.name}: api_allowed_cidrs only"
  vpc_id      = var.vpc_id
  tags        = { Name = "${var.name}-api-public" }
}

resource "aws_vpc_security_group_ingress_rule" "api_public" {
  for_each          = toset(var.api_allowed_cidrs)
  security_group_id = aws_security_group.api_public.id
  cidr_ipv4         = each.value
  ip_protocol       = "tcp"
  from_port         = 6443
  to_port           = 6443
  description       = "Kubernetes API from an allowed CIDR"
  tags              = { Name = "${var.name}-api-from-${each.value}" }
}

resource "aws_vpc_security_group_egress_rule" "api_public" {
  security_group_id = aws_security_group.api_public.id
  cidr_ipv4         = var.vpc_cidr
  ip_protocol       = "tcp"
  from_port         = 6443
  to_port           = 6443
  description       = "To the API servers (and their health checks) inside the VPC"
  tags              = { Name = "${var.name}-api-to-vpc" }
}

resource "aws_lb" "public" {
  name                             = local.public_lb_name
  internal                         = false
  load_balancer_type               = "network"
  subnets                          = var.public_subnet_ids
  security_groups                  = [aws_security_group.api_public.id]
  enable_cross_zone_load_balancing = true
  tags                             = { Name = "${var.name}-api-public" }
}

resource "aws_lb_target_group" "public" {
  name                 = local.public_lb_name
  port                 = 6443
  protocol             = "TCP"
  target_type          = "ip"
  vpc_id               = var.vpc_id
  preserve_client_ip   = false
  deregistration_delay = 30

  health_check {
    protocol            = local.api_health_check.protocol
    path                = local.api_health_check.path
    matcher             = local.api_health_check.matcher
    port                = local.api_health_check.port
    interval            = local.api_health_check.interval
    healthy_threshold   = local.api_health_check.healthy_threshold
    unhealthy_threshold = local.api_health_check.unhealthy_threshold
  }

  tags = { Name = "${var.name}-api-public" }
}

resource "aws_lb_listener" "public" {
  load_balancer_arn = aws_lb.public.arn
  port              = 6443
  protocol          = "TCP"

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.public.arn
  }
}

resource "aws_lb_target_group_attachment" "public" {
  count            = var.control_plane_count
  target_group_arn = aws_lb_target_group.public.arn
  target_id        = aws_instance.control_plane[count.index].private_ip
  port             = 6443
}
