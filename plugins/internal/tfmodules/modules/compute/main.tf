# Self-managed kubeadm nodes on EC2: control_plane_count instances with
# stacked etcd, workers in an Auto Scaling Group, and an internal NLB in
# front of the API servers when there is more than one. Nodes bootstrap
# themselves from user_data (module ../bootstrap) and coordinate through SSM
# Parameter Store; nothing connects to them over SSH.

data "aws_ec2_instance_type" "node" {
  instance_type = var.instance_type
}

locals {
  arch = contains(data.aws_ec2_instance_type.node.supported_architectures, "arm64") ? "arm64" : "amd64"
}

# Ubuntu 24.04 from Canonical's public SSM parameters rather than by owner
# ID: Canonical's account ID differs in GovCloud and China, where an owner
# filter finds nothing.
data "aws_ssm_parameter" "ubuntu_ami" {
  name = "/aws/service/canonical/ubuntu/server/24.04/stable/current/${local.arch}/hvm/ebs-gp3/ami-id"
}

data "aws_ami" "ubuntu" {
  filter {
    name   = "image-id"
    values = [data.aws_ssm_parameter.ubuntu_ami.insecure_value]
  }
}

locals {
  # control_plane_endpoint_override is the API host every node is told to
  # use: the NLB's DNS name when there is one, else empty. An instance
  # cannot name its own address in its own user_data (that would be a
  # cycle), so with one control plane member 0 uses its private IP and
  # publishes it in the join data, which joining nodes read.
  control_plane_endpoint_override = join("", aws_lb.api[*].dns_name)
  control_plane_endpoint          = local.control_plane_endpoint_override != "" ? local.control_plane_endpoint_override : aws_instance.control_plane[0].private_ip
}

# relay: a nonce per provision in the relay's SSM path (the instances write
# those parameters, so they are not in Terraform's state and outlive a
# destroy until the plugin deletes the path), and when the machines were
# created, from which the plugin bounds its wait for their bootstrap. Both
# are fixed at creation.
resource "terraform_data" "relay" {
  input = {
    nonce      = substr(replace(uuid(), "-", ""), 0, 12)
    created_at = timestamp()
  }
  lifecycle {
    ignore_changes = [input]
  }
}

module "control_plane_user_data" {
  source = "../bootstrap"
  count  = var.control_plane_count

  cluster_id            = var.cluster_id
  relay_nonce           = terraform_data.relay.output.nonce
  region                = var.region
  role                  = "control-plane"
  arch                  = local.arch
  index                 = count.index
  kubernetes_version    = var.kubernetes_version
  kubernetes_patch      = var.kubernetes_patch
  pins                  = var.bootstrap_pins
  endpoint_override     = local.control_plane_endpoint_override
  public_endpoint       = aws_lb.public.dns_name
  kubeconfig_kms_key    = aws_kms_key.kubeconfig.arn
  untaint_control_plane = var.node_count == 0
  poll_interval_seconds = var.poll_interval_seconds
  wait_timeout_seconds  = var.wait_timeout_seconds
}

module "worker_user_data" {
  source = "../bootstrap"

  cluster_id            = var.cluster_id
  relay_nonce           = terraform_data.relay.output.nonce
  region                = var.region
  role                  = "worker"
  arch                  = local.arch
  kubernetes_version    = var.kubernetes_version
  kubernetes_patch      = var.kubernetes_patch
  pins                  = var.bootstrap_pins
  poll_interval_seconds = var.poll_interval_seconds
  wait_timeout_seconds  = var.wait_timeout_seconds
}

resource "aws_instance" "control_plane" {
  count                  = var.control_plane_count
  ami                    = data.aws_ami.ubuntu.id
  instance_type          = var.instance_type
  subnet_id              = element(var.private_subnet_ids, count.index)
  vpc_security_group_ids = [var.control_plane_security_group_id]
  iam_instance_profile   = aws_iam_instance_profile.control_plane.name
  # cloud-init unpacks gzip; compressed, the script is far below the 16 KB
  # user_data limit.
  user_data_base64 = base64gzip(module.control_plane_user_data[count.index].script)

  metadata_options {
    http_endpoint = "enabled"
    http_tokens   = "required"
    # 1 hop: pods cannot reach the metadata service, so they cannot borrow
    # the node's role and read the relay's secrets. The two pods that need
    # this role's credentials, the cloud controller manager and the EBS CSI
    # driver's controller, run on the host network (one hop), as the
    # driver's documentation allows instead of a hop limit of 2.
    http_put_response_hop_limit = 1
  }

  root_block_device {
    volume_type = "gp3"
    volume_size = var.root_volume_size
    encrypted   = true
  }

  tags = merge(local.cluster_tag, {
    Name                  = "${var.name}-control-plane-${count.index}"
    "kubeopera.io/role"   = "control-plane"
    "kubeopera.io/member" = tostring(count.index)
  })

  lifecycle {
    # A newer Ubuntu image or an edited script must not replace a running
    # etcd member; replacing members is a separate, one-at-a-time operation.
    ignore_changes = [ami, user_data_base64]
  }
}
