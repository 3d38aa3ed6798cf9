package awsprovider

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/plugins/internal/tfmodules"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// In an account where EC2 does not offer the instance type in one of the
// region's zones (t3 is not offered in use1-az3), both topologies put
// their subnets in zones that offer it, by zone ID; a later apply keeps
// the zones of the state, whatever EC2 answers then.
func TestSubnetsGoWhereTheInstanceTypeIsOffered(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    *Provider
	}{{"eks", EKS("t")}, {"vanilla", Vanilla("t")}} {
		t.Run(tc.name, func(t *testing.T) {
			aws := fakeAWS(t)
			aws.EC2.SetOfferings("t3.medium", "eun1-az3", "eun1-az1") // not eun1-az2
			user := aws.IAM.AddUser("123456789012", "kubeopera")
			creds := sdk.Credentials{"kind": "access_key", "accessKeyId": user.AccessKeyID, "secretAccessKey": user.SecretAccessKey}
			in := sdk.WithDefaults(Schema(tc.p.opts), map[string]string{"region": "eu-north-1", "credentialRef": "c",
				"apiAllowedCIDRs": "203.0.113.0/24", "instanceType": "t3.medium"})

			zones, err := tc.p.zones(context.Background(), creds, in, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := rootZoneIDs(t, tc.p, in, zones); got != `["eun1-az1", "eun1-az3"]` {
				t.Errorf("first apply: subnets in %s, want the zones offering t3.medium, [eun1-az1 eun1-az3]", got)
			}

			aws.EC2.SetOfferings("t3.medium", "eun1-az2", "eun1-az3")
			applied, _ := json.Marshal([]string{"eun1-az1", "eun1-az3"})
			zones, err = tc.p.zones(context.Background(), creds, in, map[string]json.RawMessage{tfmodules.ZoneIDsOutput: applied}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := rootZoneIDs(t, tc.p, in, zones); got != `["eun1-az1", "eun1-az3"]` {
				t.Errorf("later apply: subnets in %s, want the state's zones kept", got)
			}

			aws.EC2.SetOfferings("t3.medium", "eun1-az2")
			_, err = tc.p.zones(context.Background(), creds, in, nil, true)
			if f := sdk.FieldErrors(err); len(f) != 1 || f[0].Field != "inputs.instanceType" || !strings.Contains(f[0].Message, "(eun1-az2)") {
				t.Errorf("one zone offering the type: %v, want a refusal on inputs.instanceType naming eun1-az2", err)
			}
		})
	}
}

// rootZoneIDs renders the provider's module and returns the zone_ids its
// root passes to the vpc module ("" for none).
func rootZoneIDs(t *testing.T, p *Provider, in map[string]string, zones []string) string {
	t.Helper()
	m, err := p.flavour.module("c1", in, placement{zoneIDs: zones})
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`(?m)^\s*zone_ids\s*=\s*(.*)$`).FindStringSubmatch(string(m.Files["main.tf"]))
	if got == nil {
		return ""
	}
	return got[1]
}
