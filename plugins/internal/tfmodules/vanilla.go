package tfmodules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
	"github.com/zclconf/go-cty/cty"
)

var patchRE = regexp.MustCompile(`^1\.[0-9]+\.[0-9]+$`)

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
	// KubernetesVersion is a minor version, e.g. 1.36.
	KubernetesVersion string
	// KubernetesPatch, when set, is the exact release of that minor the
	// nodes install, e.g. 1.36.2; empty means the minor's newest.
	KubernetesPatch string
	// AZCount is how many availability zones the subnets span; 0 means
	// DefaultAZCount.
	AZCount int
	// APIAllowedCIDRs are the IPv4 CIDRs the public API endpoint (an
	// internet-facing NLB) accepts; at least one.
	APIAllowedCIDRs []string
	// AssumeRole, when set, is assumed by terraform's AWS provider itself.
	AssumeRole *AssumeRole
	// ZoneIDs are the availability zone IDs of the subnets, in order, at
	// least AZCount: the zones the preflight found offering InstanceType.
	// None leaves the choice to the vpc module (the region's first).
	ZoneIDs []string
}

// Vanilla builds the module tree of an aws-vanilla run. Its root outputs
// are control_plane_endpoint (host of the API inside the VPC, port 6443),
// api_endpoint (the public NLB's DNS name, in the published kubeconfig) and
// kubeconfig_parameter (the SSM SecureString where the manager's token
// kubeconfig appears once member 0 is ready).
func Vanilla(in VanillaInput) (terraform.Module, error) {
	c := common{ClusterID: in.ClusterID, Region: in.Region, InstanceType: in.InstanceType,
		KubernetesVersion: in.KubernetesVersion, NodeCount: in.NodeCount, AZCount: in.AZCount, AssumeRole: in.AssumeRole, ZoneIDs: in.ZoneIDs}
	if err := c.check(0); err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
	}
	if p := in.KubernetesPatch; p != "" && (!patchRE.MatchString(p) || !strings.HasPrefix(p, c.KubernetesVersion+".")) {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: kubernetes patch %q: use a release of %s such as %s.0", p, c.KubernetesVersion, c.KubernetesVersion)
	}
	if err := checkCIDRs(in.APIAllowedCIDRs); err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
	}
	if in.ControlPlaneCount < 1 {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: control plane count %d: use 1, 3, 5 or 7", in.ControlPlaneCount)
	}
	pins, err := bootstrap.Pins(c.KubernetesVersion)
	if err != nil {
		return terraform.Module{}, fmt.Errorf("aws-vanilla: %w", err)
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
					"kubernetes_patch":    cty.StringVal(in.KubernetesPatch),
					"tags":                stringMap(c.tags()),
					"api_allowed_cidrs":   stringList(in.APIAllowedCIDRs),
					"bootstrap_pins":      stringMap(pins),
				},
				References: map[string]string{
					"vpc_id":                          "module.vpc.vpc_id",
					"vpc_cidr":                        "module.vpc.vpc_cidr",
					"private_subnet_ids":              "module.vpc.private_subnet_ids",
					"public_subnet_ids":               "module.vpc.public_subnet_ids",
					"control_plane_security_group_id": "module.security.control_plane_security_group_id",
					"worker_security_group_id":        "module.security.worker_security_group_id",
				}},
		},
		Outputs: []terraform.Output{
			{Name: "control_plane_endpoint", Expr: "module.compute.control_plane_endpoint"},
			{Name: "api_endpoint", Expr: "module.compute.api_endpoint"},
			{Name: "kubeconfig_parameter", Expr: "module.compute.kubeconfig_parameter"},
			{Name: "ssm_prefix", Expr: "module.compute.ssm_prefix"},
			{Name: "bootstrap_started_at", Expr: "module.compute.bootstrap_started_at"},
			{Name: "control_plane_instance_ids", Expr: "module.compute.control_plane_instance_ids"},
			{Name: "worker_autoscaling_group_name", Expr: "module.compute.worker_autoscaling_group_name"},
			zoneOutput,
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
