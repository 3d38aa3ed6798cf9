# Instance roles. Control-plane members may read and write the relay
# parameters under /kubeopera/<cluster-id>/ and nothing else; workers may
# read the worker join data and member 0's marker, and write their own
# markers. The admin kubeconfig is out of the workers' reach.

data "aws_partition" "current" {}

data "aws_caller_identity" "current" {}

locals {
  parameters    = module.worker_user_data.parameters
  parameter_arn = "arn:${data.aws_partition.current.partition}:ssm:${var.region}:${data.aws_caller_identity.current.account_id}:parameter"
}

data "aws_iam_policy_document" "assume_ec2" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

# SecureString parameters use the AWS managed key alias/aws/ssm. Decrypt and
# encrypt are allowed for that key only (kms:ResourceAliases), and only
# through Parameter Store (kms:ViaService). The key ARN is not looked up: the
# alias exists only once the account first used it in the region.
data "aws_iam_policy_document" "default_ssm_key" {
  statement {
    sid       = "DefaultParameterStoreKey"
    actions   = ["kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey"]
    resources = ["arn:${data.aws_partition.current.partition}:kms:${var.region}:${data.aws_caller_identity.current.account_id}:key/*"]
    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = ["ssm.${var.region}.amazonaws.com"]
    }
    condition {
      test     = "ForAnyValue:StringEquals"
      variable = "kms:ResourceAliases"
      values   = ["alias/aws/ssm"]
    }
  }
}

data "aws_iam_policy_document" "control_plane" {
  source_policy_documents = [data.aws_iam_policy_document.default_ssm_key.json]
  statement {
    sid       = "Relay"
    actions   = ["ssm:GetParameter", "ssm:PutParameter"]
    resources = ["${local.parameter_arn}${module.worker_user_data.ssm_prefix}/*"]
  }
}

data "aws_iam_policy_document" "worker" {
  source_policy_documents = [data.aws_iam_policy_document.default_ssm_key.json]
  statement {
    sid       = "ReadJoinData"
    actions   = ["ssm:GetParameter"]
    resources = ["${local.parameter_arn}${local.parameters.worker_join}", "${local.parameter_arn}${local.parameters.members}/0"]
  }
  statement {
    sid       = "PublishOwnState"
    actions   = ["ssm:PutParameter"]
    resources = ["${local.parameter_arn}${local.parameters.workers}/*"]
  }
}

# IAM names are account-wide: a prefix naming the region and a short
# cluster ID, and a random suffix Terraform adds, keep two installs (or two
# regions) from colliding; the tags say which cluster a role is.
locals {
  iam_prefix = "ko-${substr(var.cluster_id, 0, 8)}-${var.region}"
}

resource "aws_iam_role" "control_plane" {
  name_prefix        = "${local.iam_prefix}-cp-"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy" "control_plane" {
  name   = "kubeopera-relay"
  role   = aws_iam_role.control_plane.id
  policy = data.aws_iam_policy_document.control_plane.json
}

resource "aws_iam_instance_profile" "control_plane" {
  name_prefix = "${local.iam_prefix}-cp-"
  role        = aws_iam_role.control_plane.name
}

resource "aws_iam_role" "worker" {
  name_prefix        = "${local.iam_prefix}-wk-"
  assume_role_policy = data.aws_iam_policy_document.assume_ec2.json
}

resource "aws_iam_role_policy" "worker" {
  name   = "kubeopera-relay"
  role   = aws_iam_role.worker.id
  policy = data.aws_iam_policy_document.worker.json
}

resource "aws_iam_instance_profile" "worker" {
  name_prefix = "${local.iam_prefix}-wk-"
  role        = aws_iam_role.worker.name
}

# Session Manager reaches every node without SSH or an open port, so an
# operator can read /var/log/kubeopera/bootstrap.log on a node that failed.
resource "aws_iam_role_policy_attachment" "ssm_core" {
  for_each = {
    control_plane = aws_iam_role.control_plane.name
    worker        = aws_iam_role.worker.name
  }
  role       = each.value
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
}
