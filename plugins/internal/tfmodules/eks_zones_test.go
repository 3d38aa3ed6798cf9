package tfmodules

import (
	"slices"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// eksctl's zoneIDsToAvoid (eksctl-io/eksctl pkg/az/az.go at v0.230.0): the
// zones where EKS refuses a cluster's subnets, by region.
var eksctlZoneIDsToAvoid = map[string][]string{
	"us-east-1":    {"use1-az3"},
	"us-west-1":    {"usw1-az2"},
	"ca-central-1": {"cac1-az3"},
}

// An EKS cluster's subnets stay out of every zone eksctl avoids: the vpc
// module leaves them out of the zones it spreads subnets over, and the EKS
// root passes each of them.
func TestEKSSubnetsAvoidTheZonesEKSRefuses(t *testing.T) {
	m, err := EKS(eksInput())
	if err != nil {
		t.Fatal(err)
	}
	f, diags := hclsyntax.ParseConfig(m.Files["main.tf"], "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var excluded []string
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "module" || b.Labels[0] != "vpc" {
			continue
		}
		a, ok := b.Body.Attributes["exclude_zone_ids"]
		if !ok {
			t.Fatal(`module "vpc" of the EKS root passes no exclude_zone_ids`)
		}
		v, diags := a.Expr.Value(nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		for _, z := range v.AsValueSlice() {
			excluded = append(excluded, z.AsString())
		}
	}
	for region, zones := range eksctlZoneIDsToAvoid {
		for _, z := range zones {
			if !slices.Contains(excluded, z) {
				t.Errorf("%s: zone %s, which EKS refuses, is not excluded (excluded: %v)", region, z, excluded)
			}
		}
	}
	vpc := moduleFiles(t, "vpc")
	if got := expr(t, vpc, "exclude_zone_ids", "data", "aws_availability_zones", "available"); got != "var.exclude_zone_ids" {
		t.Errorf("the vpc module's zones exclude %s, want var.exclude_zone_ids", got)
	}
	if _, text := local(t, vpc, "zones"); text != "data.aws_availability_zones.available.names" {
		t.Errorf("the subnets' zones are %s, not the filtered data source's", text)
	}
}
