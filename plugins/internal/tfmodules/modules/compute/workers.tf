# Workers: a launch template with the worker user_data and an Auto Scaling
# Group of fixed size node_count. Workers wait on the relay for member 0, so
# they can be created at the same time as the control planes.

resource "aws_launch_template" "worker" {
  name_prefix            = "${var.name}-worker-"
  image_id               = data.aws_ami.ubuntu.id
  instance_type          = var.instance_type
  user_data              = base64gzip(module.worker_user_data.script)
  vpc_security_group_ids = [var.worker_security_group_id]

  iam_instance_profile {
    arn = aws_iam_instance_profile.worker.arn
  }

  metadata_options {
    http_endpoint = "enabled"
    http_tokens   = "required"
    # 1 hop: pods cannot reach the metadata service, so they cannot borrow
    # the worker role and read the relay's join data. The EBS CSI node
    # plugin needs no credentials and reads what it needs from the Node
    # object the cloud controller manager fills in.
    http_put_response_hop_limit = 1
  }

  block_device_mappings {
    device_name = data.aws_ami.ubuntu.root_device_name
    ebs {
      volume_type           = "gp3"
      volume_size           = var.root_volume_size
      encrypted             = true
      delete_on_termination = true
    }
  }

  # The provider's default_tags do not reach instances an Auto Scaling
  # Group launches; these do.
  tag_specifications {
    resource_type = "instance"
    tags          = merge(var.tags, local.cluster_tag, { Name = "${var.name}-worker", "kubeopera.io/role" = "worker" })
  }

  tag_specifications {
    resource_type = "volume"
    tags          = merge(var.tags, { Name = "${var.name}-worker" })
  }
}

resource "aws_autoscaling_group" "worker" {
  name                = "${var.name}-workers"
  min_size            = var.node_count
  max_size            = var.node_count
  desired_capacity    = var.node_count
  vpc_zone_identifier = var.private_subnet_ids
  health_check_type   = "EC2"

  launch_template {
    id      = aws_launch_template.worker.id
    version = aws_launch_template.worker.latest_version
  }

  dynamic "tag" {
    for_each = var.tags
    content {
      key                 = tag.key
      value               = tag.value
      propagate_at_launch = false
    }
  }
}
