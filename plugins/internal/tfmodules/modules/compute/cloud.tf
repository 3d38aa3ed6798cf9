# What the control planes need to run the AWS cloud controller manager and
# the EBS CSI driver's controller (both installed by member 0 after
# kubeadm init, see ../bootstrap): the kubelets run with
# --cloud-provider=external, so without the cloud controller nodes keep
# their uninitialized taint and Services of type LoadBalancer stay Pending;
# without the driver, volumes do.
#
# Only the control-plane role gets these permissions: both controllers are
# pinned to control-plane nodes and run on the host network, so every
# instance keeps a metadata hop limit of 1 and no pod off the host network
# can borrow the role.

locals {
  # The tag the cloud controller manager finds the cluster's instances,
  # security groups and subnets by (the vpc module tags the subnets "shared").
  cluster_tag = { "kubernetes.io/cluster/${var.name}" = "owned" }
  vpc_arn     = "arn:${data.aws_partition.current.partition}:ec2:${var.region}:${data.aws_caller_identity.current.account_id}:vpc/${var.vpc_id}"
}

# After cloud-provider-aws's documented control-plane policy, less what this
# cluster does not use (routes: flannel's VXLAN needs none; volumes: the EBS
# CSI driver's own policy below), and scoped where the API allows it.
data "aws_iam_policy_document" "cloud_controller" {
  statement {
    sid = "CloudControllerReads"
    actions = [
      "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeLaunchConfigurations", "autoscaling:DescribeTags",
      "ec2:DescribeAvailabilityZones", "ec2:DescribeInstances", "ec2:DescribeInstanceTopology", "ec2:DescribeRegions",
      "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets", "ec2:DescribeVolumes", "ec2:DescribeVpcs",
      "elasticloadbalancing:DescribeListeners", "elasticloadbalancing:DescribeLoadBalancerAttributes",
      "elasticloadbalancing:DescribeLoadBalancerPolicies", "elasticloadbalancing:DescribeLoadBalancers",
      "elasticloadbalancing:DescribeTargetGroups", "elasticloadbalancing:DescribeTargetHealth",
      "kms:DescribeKey",
    ]
    resources = ["*"]
  }
  statement {
    sid = "CloudControllerLoadBalancers"
    actions = [
      "ec2:CreateSecurityGroup", "ec2:CreateTags",
      "elasticloadbalancing:AddTags", "elasticloadbalancing:ApplySecurityGroupsToLoadBalancer",
      "elasticloadbalancing:AttachLoadBalancerToSubnets", "elasticloadbalancing:ConfigureHealthCheck",
      "elasticloadbalancing:CreateListener", "elasticloadbalancing:CreateLoadBalancer",
      "elasticloadbalancing:CreateLoadBalancerListeners", "elasticloadbalancing:CreateLoadBalancerPolicy",
      "elasticloadbalancing:CreateTargetGroup", "elasticloadbalancing:DeleteListener",
      "elasticloadbalancing:DeleteLoadBalancer", "elasticloadbalancing:DeleteLoadBalancerListeners",
      "elasticloadbalancing:DeleteTargetGroup", "elasticloadbalancing:DeregisterInstancesFromLoadBalancer",
      "elasticloadbalancing:DeregisterTargets", "elasticloadbalancing:DetachLoadBalancerFromSubnets",
      "elasticloadbalancing:ModifyListener", "elasticloadbalancing:ModifyLoadBalancerAttributes",
      "elasticloadbalancing:ModifyTargetGroup", "elasticloadbalancing:RegisterInstancesWithLoadBalancer",
      "elasticloadbalancing:RegisterTargets", "elasticloadbalancing:SetLoadBalancerPoliciesForBackendServer",
      "elasticloadbalancing:SetLoadBalancerPoliciesOfListener",
    ]
    resources = ["*"]
    condition {
      test     = "StringEquals"
      variable = "aws:RequestedRegion"
      values   = [var.region]
    }
  }
  # Rules for a load balancer's traffic go into the security groups of this
  # cluster's VPC only.
  statement {
    sid       = "CloudControllerSecurityGroupsOfTheVPC"
    actions   = ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress", "ec2:DeleteSecurityGroup"]
    resources = ["arn:${data.aws_partition.current.partition}:ec2:${var.region}:${data.aws_caller_identity.current.account_id}:security-group/*"]
    condition {
      test     = "ArnEquals"
      variable = "ec2:Vpc"
      values   = [local.vpc_arn]
    }
  }
  statement {
    sid       = "LoadBalancerServiceLinkedRole"
    actions   = ["iam:CreateServiceLinkedRole"]
    resources = ["*"]
    condition {
      test     = "StringEquals"
      variable = "iam:AWSServiceName"
      values   = ["elasticloadbalancing.amazonaws.com"]
    }
  }
}

resource "aws_iam_role_policy" "cloud_controller" {
  name   = "kubeopera-cloud-controller"
  role   = aws_iam_role.control_plane.id
  policy = data.aws_iam_policy_document.cloud_controller.json
}

# AWS's managed policy for the driver: it creates only volumes it tags
# (ebs.csi.aws.com/cluster) and deletes, attaches and detaches only those.
resource "aws_iam_role_policy_attachment" "ebs_csi" {
  role       = aws_iam_role.control_plane.name
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
}
