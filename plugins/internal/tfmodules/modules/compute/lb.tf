# An internal Network Load Balancer in front of the API servers, only when
# there is more than one control plane (nlb_count). Targets are registered
# by IP with client IP preservation off: a control-plane node that reaches
# the API through the NLB and lands on itself would otherwise see its own
# source address and drop the connection (NLB hairpinning).

locals {
  nlb_count = var.control_plane_count > 1 ? 1 : 0
  # NLB and target group names are limited to 32 characters; a cluster ID
  # (a UUID) does not fit, so the name is a hash and the Name tag says which
  # cluster it is.
  lb_name = "ko-${substr(sha1(var.cluster_id), 0, 24)}"
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
    protocol            = "TCP"
    port                = "traffic-port"
    interval            = 10
    healthy_threshold   = 2
    unhealthy_threshold = 2
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
