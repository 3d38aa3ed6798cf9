# An EKS cluster with one managed node group and an IAM OIDC provider (for
# IAM roles for service accounts). The API endpoint is public (open to
# public_access_cidrs only), so KubeOpera can reach it, and private, so
# nodes stay inside the VPC; both are inputs. The identity that
# runs Terraform becomes cluster admin through an access entry.

data "aws_partition" "current" {}

locals {
  policy_arn = "arn:${data.aws_partition.current.partition}:iam::aws:policy"
}

data "aws_iam_policy_document" "cluster_assume" {
  statement {
    actions = ["sts:AssumeRole", "sts:TagSession"]
    principals {
      type        = "Service"
      identifiers = ["eks.amazonaws.com"]
    }
  }
}

# IAM names are account-wide: name_prefix adds a random suffix.
resource "aws_iam_role" "cluster" {
  name_prefix        = "ko-eks-"
  assume_role_policy = data.aws_iam_policy_document.cluster_assume.json
}

resource "aws_iam_role_policy_attachment" "cluster" {
  role       = aws_iam_role.cluster.name
  policy_arn = "${local.policy_arn}/AmazonEKSClusterPolicy"
}

resource "aws_eks_cluster" "this" {
  name     = var.name
  version  = var.kubernetes_version
  role_arn = aws_iam_role.cluster.arn

  vpc_config {
    subnet_ids              = var.control_plane_subnet_ids
    endpoint_private_access = var.endpoint_private_access
    endpoint_public_access  = var.endpoint_public_access
    public_access_cidrs     = var.endpoint_public_access ? var.public_access_cidrs : null
  }

  access_config {
    authentication_mode                         = "API_AND_CONFIG_MAP"
    bootstrap_cluster_creator_admin_permissions = true
  }

  # When its version leaves standard support, EKS upgrades the cluster
  # instead of moving it to extended support, billed at six times the
  # hourly rate: no cost arrives unannounced.
  upgrade_policy {
    support_type = "STANDARD"
  }

  # The role must carry its policy before EKS uses it, and keep it until the
  # cluster is gone.
  depends_on = [aws_iam_role_policy_attachment.cluster]
}

data "aws_ec2_instance_type" "node" {
  instance_type = var.instance_type
}

data "aws_iam_policy_document" "node_assume" {
  statement {
    actions = ["sts:AssumeRole"]
    principals {
      type        = "Service"
      identifiers = ["ec2.amazonaws.com"]
    }
  }
}

resource "aws_iam_role" "node" {
  name_prefix        = "ko-eks-node-"
  assume_role_policy = data.aws_iam_policy_document.node_assume.json
}

resource "aws_iam_role_policy_attachment" "node" {
  for_each   = toset(["AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly"])
  role       = aws_iam_role.node.name
  policy_arn = "${local.policy_arn}/${each.value}"
}

resource "aws_eks_node_group" "this" {
  cluster_name    = aws_eks_cluster.this.name
  node_group_name = "${var.name}-nodes"
  node_role_arn   = aws_iam_role.node.arn
  version         = coalesce(var.node_version, var.kubernetes_version)
  subnet_ids      = var.node_subnet_ids
  instance_types  = [var.instance_type]
  # Amazon Linux 2 images end with Kubernetes 1.32; AL2023 covers every
  # version offered.
  ami_type = contains(data.aws_ec2_instance_type.node.supported_architectures, "arm64") ? "AL2023_ARM_64_STANDARD" : "AL2023_x86_64_STANDARD"

  scaling_config {
    desired_size = var.node_count
    min_size     = var.node_count
    max_size     = var.node_count
  }

  update_config {
    max_unavailable = 1
  }

  depends_on = [aws_iam_role_policy_attachment.node]
}

data "tls_certificate" "oidc" {
  url = aws_eks_cluster.this.identity[0].oidc[0].issuer
}

resource "aws_iam_openid_connect_provider" "this" {
  url             = aws_eks_cluster.this.identity[0].oidc[0].issuer
  client_id_list  = ["sts.amazonaws.com"]
  thumbprint_list = [data.tls_certificate.oidc.certificates[0].sha1_fingerprint]
}

# vpc-cni, kube-proxy and CoreDNS as EKS add-ons at builds pinned per
# control-plane minor (var.addon_versions): EKS installs them self-managed
# and never moves them, so their skew would grow each upgrade until EKS's
# upgrade insights block the next. OVERWRITE adopts the self-managed ones.
resource "aws_eks_addon" "core" {
  for_each = var.addon_versions

  cluster_name                = aws_eks_cluster.this.name
  addon_name                  = each.key
  addon_version               = each.value
  resolve_conflicts_on_create = "OVERWRITE"
  resolve_conflicts_on_update = "OVERWRITE"

  # CoreDNS becomes ACTIVE only once it runs, which needs nodes.
  depends_on = [aws_eks_node_group.this]
}
