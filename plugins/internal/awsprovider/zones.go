package awsprovider

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/ochestra-tech/kubeopera/plugins/internal/awsapi"
	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// placement is what a module is rendered with besides the inputs: the
// role terraform's provider assumes, and the subnets' zone IDs.
type placement struct {
	role    *tfmodules.AssumeRole
	zoneIDs []string
}

// zones are the availability zone IDs a cluster's subnets go in: those of
// its state (tfmodules.ZoneIDsOutput) once it has one, so a later apply
// never moves a subnet; else, for a first apply with the preflight on,
// the zones EC2 offers the instance type in (a type is not offered in
// every zone: t3 not in use1-az3, so the region's first zones can fail
// RunInstances); else none, and the vpc module takes the region's first.
func (p *Provider) zones(ctx context.Context, creds sdk.Credentials, in map[string]string, outputs map[string]json.RawMessage, ask bool) ([]string, error) {
	var applied []string
	if raw, ok := outputs[tfmodules.ZoneIDsOutput]; ok && json.Unmarshal(raw, &applied) == nil && len(applied) > 0 {
		return applied, nil
	}
	if !ask || len(creds) == 0 || !preflightOn() {
		return nil, nil
	}
	cfg, err := awsapi.Config(ctx, creds, in["region"])
	if err != nil {
		return nil, err
	}
	offered, err := awsapi.InstanceTypeZoneIDs(ctx, cfg, in["instanceType"])
	if err != nil {
		return nil, err
	}
	zones := p.usableZones(offered)
	if len(zones) < tfmodules.DefaultAZCount {
		return nil, sdk.InvalidInput(sdk.FieldError{Field: "inputs.instanceType", Message: "EC2 offers " + in["instanceType"] +
			" in fewer availability zones of " + in["region"] + " than the cluster spreads over (" + orNone(zones) +
			"); pick a type offered in more zones, e.g. t3.medium"})
	}
	return zones, nil // the module takes as many as it spans
}

// usableZones are the offered zone IDs the cluster may use, sorted so the
// choice is the same on every call: for EKS, not those EKS refuses.
func (p *Provider) usableZones(offered []string) []string {
	zones := slices.Clone(offered)
	if !p.opts.ControlPlane {
		zones = slices.DeleteFunc(zones, func(z string) bool { return slices.Contains(tfmodules.EKSUnsupportedZoneIDs, z) })
	}
	slices.Sort(zones)
	return slices.Compact(zones)
}
