package tfmodules

// Upstream parts the EKS modules pin. These move into
// plugins/internal/upstream (the one table of pinned parts).
const (
	// EBSCSIAddonVersion is the aws-ebs-csi-driver EKS add-on the eks
	// module installs: driver v1.64.0, upstream's newest release on
	// 2026-12-01 (kubernetes-sigs/aws-ebs-csi-driver CHANGELOG.md), in
	// EKS's first build of it. Validate asks EKS (DescribeAddonVersions)
	// whether it is offered for the requested Kubernetes minor.
	EBSCSIAddonVersion = "v1.64.0-eksbuild.1"
	// EBSCSIDriverVersion is the upstream release EBSCSIAddonVersion
	// packages; the tests carry its rules over, citing files at this tag.
	EBSCSIDriverVersion = "v1.64.0"
	// AWSProviderVersion is the constraint on hashicorp/aws of every root
	// and module: the provider's current major. Nothing the modules use was
	// renamed or removed in 6.0 (its guide, website/docs/guides/
	// version-6-upgrade.html.markdown: aws_eip vpc, aws_eks_addon
	// resolve_conflicts, aws_instance cpu_core_count, data aws_region name
	// are all unused here).
	AWSProviderVersion = "~> 6.0"
)
