package tfmodules

import (
	"fmt"

	"github.com/ochestra-tech/kubeopera/sdk/terraform"
	"github.com/zclconf/go-cty/cty"
)

// VanillaInput is one aws-vanilla request: a self-managed kubeadm cluster.
type VanillaInput struct {
	// ClusterID is KubeOpera's cluster ID; resources are named
	// kubeopera-<ClusterID> and tagged with ClusterIDTag.
	ClusterID string
	// Region is the AWS region, e.g. eu-north-1.
	Region string
	// ControlPlaneCount is 1, 3, 5 or 7; the compute module refuses even
	// counts (etcd quorum). Above 1, an internal NLB fronts the API servers.
	ControlPlaneCount int
	// NodeCount is the number of workers, 0 or more.
	NodeCount int
	// InstanceType is the EC2 type of every node, e.g. t3.medium.
	InstanceType string
	// KubernetesVersion is a minor version, e.g. 1.33.
	KubernetesVersion string
	// AZCount is how many availability zones the subnets span; 0 means
	// DefaultAZCount.
	AZCount int
}

// Vanilla builds the module tree of an aws-vanilla run. Its root outputs
// are control_plane_endpoint (host of the API, port 6443) and
// kubeconfig_parameter (the SSM SecureString where the admin kubeconfig
// appears once member 0 is ready).
func Vanilla(in VanillaInput) (terraform.Module, error) {
	c := common{ClusterID: in.ClusterID, Region: in.Region, InstanceType: in.InstanceType,
		KubernetesVersion: in.KubernetesVersion, NodeCount: in.NodeCount, AZCount: in.AZCount}
	if err := c.check(0); err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
	}
	if in.ControlPlaneCount < 1 {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: control plane count %d: use 1, 3, 5 or 7", in.ControlPlaneCount)
	}
	root := terraform.Root{
		RequiredProviders: map[string]terraform.ProviderRequirement{"aws": awsRequirement},
		Providers:         []terraform.Provider{c.awsProvider()},
		Backend:           "kubernetes",
		Modules: []terraform.ModuleCall{
			c.vpcCall(),
			{Name: "security", Source: "./modules/security",
				Inputs: map[string]cty.Value{"name": cty.StringVal(Name(c.ClusterID))},
				References: map[string]string{
					"vpc_id":   "module.vpc.vpc_id",
					"vpc_cidr": "module.vpc.vpc_cidr",
				}},
			{Name: "compute", Source: "./modules/compute",
				Inputs: map[string]cty.Value{
					"name":                cty.StringVal(Name(c.ClusterID)),
					"cluster_id":          cty.StringVal(c.ClusterID),
					"region":              cty.StringVal(c.Region),
					"control_plane_count": cty.NumberIntVal(int64(in.ControlPlaneCount)),
					"node_count":          cty.NumberIntVal(int64(c.NodeCount)),
					"instance_type":       cty.StringVal(c.InstanceType),
					"kubernetes_version":  cty.StringVal(c.KubernetesVersion),
					"tags":                stringMap(c.tags()),
				},
				References: map[string]string{
					"vpc_id":                          "module.vpc.vpc_id",
					"private_subnet_ids":              "module.vpc.private_subnet_ids",
					"control_plane_security_group_id": "module.security.control_plane_security_group_id",
					"worker_security_group_id":        "module.security.worker_security_group_id",
				}},
		},
		Outputs: []terraform.Output{
			{Name: "control_plane_endpoint", Expr: "module.compute.control_plane_endpoint"},
			{Name: "kubeconfig_parameter", Expr: "module.compute.kubeconfig_parameter"},
		},
	}
	m, err := build(root, "vpc", "security", "compute")
	if err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
	}
	if err := addBootstrap(m); err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
	}
	return m, nil
}
