output "cluster_name" {
  description = "Name of the EKS cluster."
  value       = aws_eks_cluster.this.name
}

output "endpoint" {
  description = "URL of the cluster's Kubernetes API."
  value       = aws_eks_cluster.this.endpoint
}

output "certificate_authority_data" {
  description = "Base64 PEM of the cluster's CA, as in a kubeconfig's certificate-authority-data."
  value       = aws_eks_cluster.this.certificate_authority[0].data
}

output "oidc_provider_arn" {
  description = "ARN of the IAM OIDC provider, for IAM roles for service accounts."
  value       = aws_iam_openid_connect_provider.this.arn
}
