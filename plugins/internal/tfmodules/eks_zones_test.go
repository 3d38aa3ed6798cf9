package tfmodules

import (
	"slices"
	"strings"
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
	if _, text := local(t, vpc, "zone_ids"); text != "length(var.zone_ids) > 0 ? var.zone_ids : data.aws_availability_zones.available.zone_ids" {
		t.Errorf("the subnets' zones are %s, not the zones passed, else the filtered data source's", text)
	}
}

// The subnets go in the zones the plugin passes, by zone ID (the same
// physical zone in every account; zone names are shuffled per account),
// and never by zone name.
func TestSubnetsArePlacedByZoneID(t *testing.T) {
	vpc := moduleFiles(t, "vpc")
	for _, subnet := range []string{"public", "private"} {
		if got := expr(t, vpc, "availability_zone_id", "resource", "aws_subnet", subnet); got != "local.zone_ids[count.index]" {
			t.Errorf("aws_subnet.%s availability_zone_id = %s, want local.zone_ids[count.index]", subnet, got)
		}
		_, b, _ := block(t, vpc, "resource", "aws_subnet", subnet)
		if _, ok := b.Body.Attributes["availability_zone"]; ok {
			t.Errorf("aws_subnet.%s still sets availability_zone (a name, which maps to another zone in each account)", subnet)
		}
	}
	for _, tc := range []struct {
		name  string
		build func([]string) (map[string][]byte, error)
	}{
		{"eks", func(z []string) (map[string][]byte, error) {
			in := eksInput()
			in.ZoneIDs = z
			m, err := EKS(in)
			return m.Files, err
		}},
		{"vanilla", func(z []string) (map[string][]byte, error) {
			in := vanillaInput(1)
			in.ZoneIDs = z
			m, err := Vanilla(in)
			return m.Files, err
		}},
	} {
		t.Run(tc.name+" passes the zone IDs it is given and outputs them", func(t *testing.T) {
			files, err := tc.build([]string{"use1-az1", "use1-az4", "use1-az5", "use1-az6"})
			if err != nil {
				t.Fatal(err)
			}
			root := unaligned(string(files["main.tf"]))
			want := map[string]string{"eks": `zone_ids = ["use1-az1", "use1-az4", "use1-az5"]`, "vanilla": `zone_ids = ["use1-az1", "use1-az4"]`}[tc.name]
			if !strings.Contains(root, want) || !strings.Contains(root, "value = module.vpc.zone_ids") {
				t.Errorf("root does not pass %s (the first zones, as many as it spans) or output them:\n%s", want, root)
			}
			if _, err := tc.build([]string{"use1-az1"}); err == nil {
				t.Error("one zone ID for two zones was accepted")
			}
		})
	}
}
