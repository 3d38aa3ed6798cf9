package tfmodules

import (
	"encoding/json"
	"fmt"

	"github.com/zclconf/go-cty/cty"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// EKSInput is one aws-eks request: an EKS cluster with a managed node group.
type EKSInput struct {
	// ClusterID is KubeOpera's cluster ID; the EKS cluster is named
	// kubeopera-<ClusterID> and everything is tagged with ClusterIDTag.
	ClusterID string
	// Region is the AWS region, e.g. eu-north-1.
	Region string
	// NodeCount is the size of the managed node group, 1 or more.
	NodeCount int
	// InstanceType is the EC2 type of the nodes, e.g. t3.medium.
	InstanceType string
	// KubernetesVersion is a minor version EKS offers, e.g. 1.36.
	KubernetesVersion string
	// NodeVersion is the managed node group's minor version; "" means
	// KubernetesVersion. An upgrade sets it to the old minor for its
	// first apply, which moves only the control plane.
	NodeVersion string
	// AZCount is how many availability zones the subnets span, at least 2
	// (EKS requires two); 0 means DefaultAZCount.
	AZCount int
	// PublicAccess and PrivateAccess turn on the cluster's public and
	// private API endpoints; at least one.
	PublicAccess, PrivateAccess bool
	// PublicAccessCIDRs are the IPv4 CIDRs the public endpoint accepts; at
	// least one when PublicAccess.
	PublicAccessCIDRs []string
	// AssumeRole, when set, is assumed by terraform's AWS provider itself.
	AssumeRole *AssumeRole
	// ZoneIDs are the availability zone IDs of the subnets, in order, at
	// least AZCount: the zones the preflight found offering InstanceType.
	// None leaves the choice to the vpc module (the region's first).
	ZoneIDs []string
}

// EKSUnsupportedZoneIDs are the availability zones where EKS cannot create
// a cluster's control-plane network interfaces (CreateCluster answers
// UnsupportedAvailabilityZoneException); zone IDs name the same physical
// zone in every account, unlike zone names. eksctl avoids the same ones.
var EKSUnsupportedZoneIDs = []string{"use1-az3", "usw1-az2", "cac1-az3"}

// awsRequirement and tlsRequirement pin the providers the modules declare.
var (
	awsRequirement = terraform.ProviderRequirement{Source: "hashicorp/aws", Version: upstream.TerraformAWSProvider.Version}
	tlsRequirement = terraform.ProviderRequirement{Source: "hashicorp/tls", Version: "~> 4.0"}
)

// EKS builds the module tree of an aws-eks run. Its root outputs are
// cluster_name, endpoint and certificate_authority_data: what a kubeconfig
// with aws-iam-authenticator needs.
func EKS(in EKSInput) (terraform.Module, error) {
	c := common{ClusterID: in.ClusterID, Region: in.Region, InstanceType: in.InstanceType,
		KubernetesVersion: in.KubernetesVersion, NodeCount: in.NodeCount, AZCount: in.AZCount, AssumeRole: in.AssumeRole, ZoneIDs: in.ZoneIDs}
	if err := c.check(1); err != nil {
		return terraform.Module{}, fmt.Errorf("aws-eks: %w", err)
	}
	if c.azCount() < 2 {
		return terraform.Module{}, fmt.Errorf("aws-eks: availability zone count %d: EKS needs at least 2", c.AZCount)
	}
	if !in.PublicAccess && !in.PrivateAccess {
		return terraform.Module{}, fmt.Errorf("aws-eks: the API needs a public or a private endpoint")
	}
	nodeVersion := in.NodeVersion
	if nodeVersion == "" {
		nodeVersion = c.KubernetesVersion
	} else if !versionRE.MatchString(nodeVersion) {
		return terraform.Module{}, fmt.Errorf("aws-eks: node version %q: use a minor version such as 1.36", nodeVersion)
	}
	addons, ok := upstream.EKSAddons(c.KubernetesVersion)
	if !ok {
		return terraform.Module{}, fmt.Errorf("aws-eks: no add-on builds pinned for Kubernetes %s (pinned: %v)", c.KubernetesVersion, upstream.EKSAddonMinors())
	}
	cidrs := []string{}
	if in.PublicAccess {
		if err := checkCIDRs(in.PublicAccessCIDRs); err != nil {
			return terraform.Module{}, fmt.Errorf("aws-eks: %w", err)
		}
		cidrs = in.PublicAccessCIDRs
	}
	root := terraform.Root{
		RequiredProviders: map[string]terraform.ProviderRequirement{"aws": awsRequirement, "tls": tlsRequirement},
		Providers:         []terraform.Provider{c.awsProvider()},
		Backend:           "kubernetes",
		Modules: []terraform.ModuleCall{
			c.vpcCall(EKSUnsupportedZoneIDs...),
			{Name: "eks", Source: "./modules/eks",
				Inputs: map[string]cty.Value{
					"name":                         cty.StringVal(Name(c.ClusterID)),
					"kubernetes_version":           cty.StringVal(c.KubernetesVersion),
					"node_version":                 cty.StringVal(nodeVersion),
					"node_count":                   cty.NumberIntVal(int64(c.NodeCount)),
					"instance_type":                cty.StringVal(c.InstanceType),
					"endpoint_public_access":       cty.BoolVal(in.PublicAccess),
					"endpoint_private_access":      cty.BoolVal(in.PrivateAccess),
					"public_access_cidrs":          stringList(cidrs),
					"ebs_csi_addon_version":        cty.StringVal(upstream.EBSCSIAddon.Version),
					"addon_versions":               stringMap(addons),
					"ebs_csi_configuration_values": cty.StringVal(EBSCSIConfigurationValues(Name(c.ClusterID))),
				},
				References: map[string]string{
					"control_plane_subnet_ids": "module.vpc.private_subnet_ids",
					"node_subnet_ids":          "module.vpc.private_subnet_ids",
				}},
		},
		Outputs: []terraform.Output{
			{Name: "cluster_name", Expr: "module.eks.cluster_name"},
			{Name: "endpoint", Expr: "module.eks.endpoint"},
			{Name: "certificate_authority_data", Expr: "module.eks.certificate_authority_data"},
			zoneOutput,
		},
	}
	m, err := build(root, "vpc", "eks")
	if err != nil {
		return terraform.Module{}, fmt.Errorf("aws-eks: %w", err)
	}
	return m, nil
}

// EBSCSIConfigurationValues is the aws-ebs-csi-driver add-on's
// configuration_values for the cluster named name: only keys the add-on's
// own schema has had in every version shown (controller.extraVolumeTags;
// the Helm chart's controller.k8sTagClusterId is not in it, and EKS
// refuses unknown keys). Volumes are tagged awsapi.VolumeTag = name for
// the destroy's sweep: a kubeopera.io key, since the driver refuses extra
// tags starting with kubernetes.io and its controller then exits.
func EBSCSIConfigurationValues(name string) string {
	data, _ := json.Marshal(map[string]any{"controller": map[string]any{
		"extraVolumeTags": map[string]string{awsapi.VolumeTag: name}}})
	return string(data)
}
