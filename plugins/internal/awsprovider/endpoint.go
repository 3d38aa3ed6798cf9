package awsprovider

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// The Kubernetes API of a new cluster must be reachable by KubeOpera's
// management side, which runs outside the cluster's VPC, and by nobody
// else: it gets a public endpoint open only to apiAllowedCIDRs. There is
// no default: 0.0.0.0/0 must be asked for.
const (
	inputAllowedCIDRs   = "apiAllowedCIDRs"
	inputPublicAccess   = "endpointPublicAccess"
	inputPrivateAccess  = "endpointPrivateAccess"
	maxAllowedCIDRs     = 20
	allowedCIDRsExample = "203.0.113.0/24"
)

const allowedCIDRsHelp = "comma-separated IPv4 CIDRs allowed to reach the cluster's Kubernetes API from the internet; " +
	"include the address KubeOpera's management side connects from (its NAT or egress IP, e.g. " + allowedCIDRsExample +
	"). 0.0.0.0/0 opens the API to everyone (it still needs credentials)"

// endpointFields are the inputs that decide who reaches the API.
func endpointFields(o Options) []sdk.InputField {
	if o.ControlPlane {
		return []sdk.InputField{{Name: inputAllowedCIDRs, Type: sdk.String, Required: true, Help: allowedCIDRsHelp}}
	}
	return []sdk.InputField{
		{Name: inputAllowedCIDRs, Type: sdk.String, Help: allowedCIDRsHelp + "; required while endpointPublicAccess is true"},
		{Name: inputPublicAccess, Type: sdk.Bool, Default: "true",
			Help: "EKS public API endpoint, open to apiAllowedCIDRs; KubeOpera needs it unless it runs inside the cluster's VPC"},
		{Name: inputPrivateAccess, Type: sdk.Bool, Default: "true",
			Help: "EKS private API endpoint inside the VPC, which the nodes use"},
	}
}

// AllowedCIDRs parses apiAllowedCIDRs: canonical IPv4 prefixes, at most
// maxAllowedCIDRs, none twice.
func AllowedCIDRs(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		switch {
		case err != nil || !p.Addr().Is4():
			return nil, fmt.Errorf("%q is not an IPv4 CIDR; write one like %s", part, allowedCIDRsExample)
		case p.Masked() != p:
			return nil, fmt.Errorf("%q has host bits set; write %s", part, p.Masked())
		case seen[part]:
			return nil, fmt.Errorf("%s is listed twice", part)
		}
		seen[part] = true
		out = append(out, part)
	}
	if len(out) > maxAllowedCIDRs {
		return nil, fmt.Errorf("%d CIDRs: at most %d (security group rule limits); use wider prefixes", len(out), maxAllowedCIDRs)
	}
	return out, nil
}

// validateEndpoint checks the endpoint inputs; bad are the fields the
// schema check already reported.
func validateEndpoint(o Options, in map[string]string, bad map[string]bool) []sdk.FieldError {
	field := "inputs." + inputAllowedCIDRs
	if bad[field] {
		return nil
	}
	public := o.ControlPlane || in[inputPublicAccess] != "false"
	if !o.ControlPlane && in[inputPublicAccess] == "false" && in[inputPrivateAccess] == "false" {
		return []sdk.FieldError{{Field: "inputs." + inputPrivateAccess,
			Message: "the API needs an endpoint: set endpointPublicAccess or endpointPrivateAccess to true"}}
	}
	cidrs, err := AllowedCIDRs(in[inputAllowedCIDRs])
	switch {
	case err != nil:
		return []sdk.FieldError{{Field: field, Message: err.Error()}}
	case public && len(cidrs) == 0:
		return []sdk.FieldError{{Field: field, Message: "is required: list who may reach the Kubernetes API, at least the address " +
			"KubeOpera's management side connects from (e.g. " + allowedCIDRsExample + "); use 0.0.0.0/0 only to open it to everyone"}}
	case !o.ControlPlane && in[inputPrivateAccess] == "false" && !slices.Contains(cidrs, "0.0.0.0/0"):
		// Without the private endpoint the nodes, in private subnets, reach
		// the API through the NAT gateway's address, which is created with
		// the cluster and so is in no allow-list given now: they never join.
		return []sdk.FieldError{{Field: "inputs." + inputPrivateAccess, Message: "is false while apiAllowedCIDRs is not 0.0.0.0/0: " +
			"the nodes would reach the public endpoint from the VPC's NAT gateway address, which the allow-list does not hold, " +
			"and never join; set endpointPrivateAccess to true (the nodes then use the private endpoint) or apiAllowedCIDRs to 0.0.0.0/0"}}
	}
	return nil
}
