output "control_plane_endpoint" {
  description = "Host of the Kubernetes API (port 6443): the internal NLB's DNS name with more than one control plane, else member 0's private IP."
  value       = local.control_plane_endpoint
}

output "api_endpoint" {
  description = "Public host of the Kubernetes API (port 6443): the internet-facing NLB, open to api_allowed_cidrs only. The published admin kubeconfig points here."
  value       = aws_lb.public.dns_name
}

output "kubeconfig_parameter" {
  description = "SSM parameter (SecureString) where member 0 publishes the admin kubeconfig."
  value       = module.worker_user_data.parameters.admin_kubeconfig
}

output "ssm_prefix" {
  description = "Parameter Store path of this provision's relay, /kubeopera/<cluster_id>/<nonce>; every node marker is below it, and the plugin deletes it after a destroy."
  value       = module.worker_user_data.ssm_prefix
}

output "bootstrap_started_at" {
  description = "When the machines were first created (RFC 3339); the plugin gives their bootstrap a deadline from it."
  value       = terraform_data.relay.output.created_at
}

output "control_plane_instance_ids" {
  description = "EC2 instance IDs of the control-plane members, by member index."
  value       = aws_instance.control_plane[*].id
}

output "worker_autoscaling_group_name" {
  description = "Name of the workers' Auto Scaling Group."
  value       = aws_autoscaling_group.worker.name
}
