# Block storage. EKS does not install an EBS driver, so a volume whose
# StorageClass names ebs.csi.aws.com (the GitOps tree's) stays Pending until
# the aws-ebs-csi-driver add-on runs. Its controller gets AWS credentials
# through IAM roles for service accounts (IRSA): a role only the
# controller's service account of this cluster's OIDC provider may assume,
# with AWS's managed policy for the driver, which itself limits the driver
# to volumes it tagged.

locals {
  # IRSA condition keys are the issuer URL without its scheme.
  oidc_issuer = replace(aws_eks_cluster.this.identity[0].oidc[0].issuer, "https://", "")
  # The service account the add-on's controller runs as.
  ebs_csi_service_account = "system:serviceaccount:kube-system:ebs-csi-controller-sa"
}

data "aws_iam_policy_document" "ebs_csi_assume" {
  statement {
    actions = ["sts:AssumeRoleWithWebIdentity"]
    principals {
      type        = "Federated"
      identifiers = [aws_iam_openid_connect_provider.this.arn]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_issuer}:sub"
      values   = [local.ebs_csi_service_account]
    }
    condition {
      test     = "StringEquals"
      variable = "${local.oidc_issuer}:aud"
      values   = ["sts.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "ebs_csi" {
  name_prefix        = "ko-eks-ebs-csi-"
  assume_role_policy = data.aws_iam_policy_document.ebs_csi_assume.json
}

resource "aws_iam_role_policy_attachment" "ebs_csi" {
  role       = aws_iam_role.ebs_csi.name
  policy_arn = "${local.policy_arn}/service-role/AmazonEBSCSIDriverPolicy"
}

resource "aws_eks_addon" "ebs_csi" {
  cluster_name = aws_eks_cluster.this.name
  addon_name   = "aws-ebs-csi-driver"
  # Pinned: EKS's default version changes under us otherwise. Validate
  # asks EKS (DescribeAddonVersions) that it exists for the minor.
  addon_version               = var.ebs_csi_addon_version
  service_account_role_arn    = aws_iam_role.ebs_csi.arn
  resolve_conflicts_on_create = "OVERWRITE"
  resolve_conflicts_on_update = "OVERWRITE"
  # Rendered by the plugin (tfmodules.EBSCSIConfigurationValues), whose
  # preflight validates the same text against the schema EKS returns for
  # this add-on version (eks:DescribeAddonConfiguration): EKS refuses keys
  # that schema lacks, and it has lagged the driver's Helm chart.
  configuration_values = var.ebs_csi_configuration_values

  # The add-on only becomes ACTIVE once its controller runs, which needs
  # nodes; and the controller needs its policy from its first call.
  depends_on = [aws_eks_node_group.this, aws_iam_role_policy_attachment.ebs_csi]
}
