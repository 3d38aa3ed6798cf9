// Package tfmodules holds the Terraform modules of the AWS provider plugins
// (embedded) and builds, for one request, the module tree a Terraform run
// applies: a rendered root (provider, backend, module calls, outputs) plus
// the child modules under modules/.
//
// aws-vanilla wires vpc -> security -> compute (kubeadm on EC2; compute
// calls the bootstrap module of package bootstrap for each node's
// user_data); aws-eks wires vpc -> eks.
package tfmodules

import (
	"embed"
	"fmt"
	"io/fs"
	"net/netip"
	"path"
	"regexp"

	"github.com/ochestra-tech/kubeopera/plugins/internal/bootstrap"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
	"github.com/zclconf/go-cty/cty"
)

//go:embed modules
var embedded embed.FS

// ClusterIDTag is the tag every resource carries (the provider's
// default_tags), set to KubeOpera's cluster ID.
const ClusterIDTag = "kubeopera.io/cluster-id"

// DefaultAZCount is the number of availability zones used when an input
// leaves AZCount at 0.
const DefaultAZCount = 2

// maxClusterIDLen keeps every derived name within AWS limits: IAM role
// names ("kubeopera-<id>-worker") may have 64 characters.
const maxClusterIDLen = 40

var (
	clusterIDRE    = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
	regionRE       = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]$`)
	instanceTypeRE = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[0-9]*[a-z0-9]+$`)
	versionRE      = regexp.MustCompile(`^1\.[0-9]+$`)
)

// Name is the name of a cluster's AWS resources: kubeopera-<cluster-id>.
func Name(clusterID string) string { return "kubeopera-" + clusterID }

// AssumeRole makes terraform's AWS provider assume a role itself (an
// assume_role block) instead of using session keys resolved before the
// run: the provider renews the session, so a long apply or destroy, or a
// resumed Job, does not fail with ExpiredToken.
type AssumeRole struct {
	RoleARN, ExternalID, SessionName string
}

// common are the inputs both plugins share.
type common struct {
	ClusterID, Region, InstanceType, KubernetesVersion string
	NodeCount, AZCount                                 int
	AssumeRole                                         *AssumeRole
	// ZoneIDs are the subnets' availability zone IDs, at least azCount();
	// none leaves the choice to the vpc module.
	ZoneIDs []string
}

// check returns the first input that cannot be rendered, saying what to use.
func (c common) check(minNodes int) error {
	switch {
	case len(c.ClusterID) > maxClusterIDLen || !clusterIDRE.MatchString(c.ClusterID):
		return fmt.Errorf("cluster ID %q: use at most %d lowercase letters, digits and inner dashes (AWS name limits)", c.ClusterID, maxClusterIDLen)
	case !regionRE.MatchString(c.Region):
		return fmt.Errorf("region %q is not an AWS region name; use one like eu-north-1", c.Region)
	case !instanceTypeRE.MatchString(c.InstanceType):
		return fmt.Errorf("instance type %q is not an EC2 instance type; use one like t3.medium", c.InstanceType)
	case !versionRE.MatchString(c.KubernetesVersion):
		return fmt.Errorf("kubernetes version %q: use a minor version such as 1.36", c.KubernetesVersion)
	case c.NodeCount < minNodes:
		return fmt.Errorf("node count %d: use at least %d", c.NodeCount, minNodes)
	case c.AZCount < 0 || c.AZCount > 8:
		return fmt.Errorf("availability zone count %d: use 1 to 8, or 0 for %d", c.AZCount, DefaultAZCount)
	case len(c.ZoneIDs) > 0 && len(c.ZoneIDs) < c.azCount():
		return fmt.Errorf("zone IDs %v: the subnets span %d zones, name as many", c.ZoneIDs, c.azCount())
	}
	return nil
}

func (c common) azCount() int {
	if c.AZCount == 0 {
		return DefaultAZCount
	}
	return c.AZCount
}

// vpcCall is the vpc module call both roots start with: its subnets in
// the first ZoneIDs, else out of the zones of excludeZoneIDs.
func (c common) vpcCall(excludeZoneIDs ...string) terraform.ModuleCall {
	call := terraform.ModuleCall{Name: "vpc", Source: "./modules/vpc", Inputs: map[string]cty.Value{
		"name":         cty.StringVal(Name(c.ClusterID)),
		"cluster_name": cty.StringVal(Name(c.ClusterID)),
		"az_count":     cty.NumberIntVal(int64(c.azCount())),
	}}
	if len(excludeZoneIDs) > 0 {
		call.Inputs["exclude_zone_ids"] = stringList(excludeZoneIDs)
	}
	if len(c.ZoneIDs) > 0 {
		call.Inputs["zone_ids"] = stringList(c.ZoneIDs[:c.azCount()])
	}
	return call
}

// ZoneIDsOutput is the root output naming the subnets' zone IDs, which a
// later apply of the same cluster passes again as ZoneIDs.
const ZoneIDsOutput = "zone_ids"

// zoneOutput is the root output of the subnets' zone IDs.
var zoneOutput = terraform.Output{Name: ZoneIDsOutput, Expr: "module.vpc.zone_ids"}

// tags are the tags every resource of the cluster carries.
func (c common) tags() map[string]string {
	return map[string]string{ClusterIDTag: c.ClusterID, "kubeopera.io/managed-by": "kubeopera"}
}

// awsProvider is the provider configuration of both roots: the region and
// default_tags, which tag every resource the provider creates.
func (c common) awsProvider() terraform.Provider {
	p := terraform.Provider{
		Name:       "aws",
		Attributes: map[string]cty.Value{"region": cty.StringVal(c.Region)},
		Blocks: []terraform.Block{{Type: "default_tags",
			Attributes: map[string]cty.Value{"tags": stringMap(c.tags())}}},
	}
	if r := c.AssumeRole; r != nil {
		attrs := map[string]cty.Value{"role_arn": cty.StringVal(r.RoleARN), "session_name": cty.StringVal(r.SessionName)}
		if r.ExternalID != "" {
			attrs["external_id"] = cty.StringVal(r.ExternalID)
		}
		p.Blocks = append(p.Blocks, terraform.Block{Type: "assume_role", Attributes: attrs})
	}
	return p
}

// build renders root and puts it together with the named child modules.
func build(root terraform.Root, dirs ...string) (terraform.Module, error) {
	src, err := terraform.RenderRoot(root)
	if err != nil {
		return terraform.Module{}, fmt.Errorf("render root module: %w", err)
	}
	children, err := fs.Sub(embedded, "modules")
	if err != nil {
		return terraform.Module{}, fmt.Errorf("embedded modules: %w", err)
	}
	m, err := terraform.NewModule(src, children, dirs...)
	if err != nil {
		return terraform.Module{}, fmt.Errorf("assemble module tree: %w", err)
	}
	return m, nil
}

func stringList(l []string) cty.Value {
	if len(l) == 0 {
		return cty.ListValEmpty(cty.String)
	}
	values := make([]cty.Value, len(l))
	for i, v := range l {
		values[i] = cty.StringVal(v)
	}
	return cty.ListVal(values)
}

// checkCIDRs accepts one or more canonical IPv4 CIDRs: the API's
// allow-list has no default.
func checkCIDRs(cidrs []string) error {
	if len(cidrs) == 0 {
		return fmt.Errorf("no CIDR may reach the API: list at least one (0.0.0.0/0 only if everyone may)")
	}
	for _, c := range cidrs {
		if p, err := netip.ParsePrefix(c); err != nil || !p.Addr().Is4() || p.Masked() != p {
			return fmt.Errorf("API allow-list entry %q is not a canonical IPv4 CIDR such as 203.0.113.0/24", c)
		}
	}
	return nil
}

func stringMap(m map[string]string) cty.Value {
	values := make(map[string]cty.Value, len(m))
	for k, v := range m {
		values[k] = cty.StringVal(v)
	}
	return cty.MapVal(values)
}

// addBootstrap copies the user_data module the compute module calls
// (../bootstrap) into m.
func addBootstrap(m terraform.Module) error {
	fsys := bootstrap.Module()
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("module %s: %w", bootstrap.ModuleDir, err)
		}
		m.Files[path.Join("modules", bootstrap.ModuleDir, p)] = data
		return nil
	})
}
