# The admin kubeconfig in SSM is encrypted with a key of this cluster's own,
# not the AWS-managed alias/aws/ssm, which every principal of the account
# that may read the parameter may also decrypt with. Here the control
# planes may encrypt (member 0 publishes it); decrypting needs kms:Decrypt
# on this key in the reader's IAM policy (the provisioning identity has it,
# see docs/aws.md), as the account root statement delegates to IAM.

resource "aws_kms_key" "kubeconfig" {
  description             = "Admin kubeconfig of ${var.name} in SSM Parameter Store"
  deletion_window_in_days = 7
  enable_key_rotation     = true
  policy                  = data.aws_iam_policy_document.kubeconfig_key.json
}

data "aws_iam_policy_document" "kubeconfig_key" {
  statement {
    sid       = "AccountAdministersThroughIAM"
    actions   = ["kms:*"]
    resources = ["*"]
    principals {
      type        = "AWS"
      identifiers = ["arn:${data.aws_partition.current.partition}:iam::${data.aws_caller_identity.current.account_id}:root"]
    }
  }
  statement {
    sid       = "ControlPlanesPublishTheKubeconfig"
    actions   = ["kms:Encrypt", "kms:GenerateDataKey"]
    resources = ["*"]
    principals {
      type        = "AWS"
      identifiers = [aws_iam_role.control_plane.arn]
    }
    condition {
      test     = "StringEquals"
      variable = "kms:ViaService"
      values   = ["ssm.${var.region}.amazonaws.com"]
    }
  }
}
