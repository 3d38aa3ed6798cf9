package awsprovider

import (
	"context"
	"reflect"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
)

func TestDay2PlanIsOneApplyPerChangeAndControlPlaneFirst(t *testing.T) {
	p := EKS("test")
	at := shape{Nodes: 2, Version: "1.35", NodeVersion: "1.35"}
	for _, tc := range []struct {
		name   string
		target shape
		want   []shape
	}{
		{"scale", shape{Nodes: 3, Version: "1.35", NodeVersion: "1.35"}, []shape{{3, "1.35", "1.35"}}},
		{"upgrade", shape{Nodes: 2, Version: "1.36", NodeVersion: "1.35"}, []shape{{2, "1.36", "1.35"}, {2, "1.36", "1.36"}}},
		{"upgrade and scale", shape{Nodes: 4, Version: "1.36", NodeVersion: "1.35"}, []shape{{4, "1.36", "1.35"}, {4, "1.36", "1.36"}}},
		{"nothing", at, nil},
	} {
		if got := p.plan(at, tc.target); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: plan %v, want %v", tc.name, got, tc.want)
		}
	}
	// A node group an earlier upgrade left behind is brought up by the next change.
	if got := p.plan(shape{2, "1.36", "1.35"}, shape{3, "1.36", "1.35"}); !reflect.DeepEqual(got, []shape{{3, "1.36", "1.36"}}) {
		t.Errorf("scale of a half-upgraded cluster: %v", got)
	}
}

func TestDay2CapabilitiesComeFromTheVersionTable(t *testing.T) {
	eks, _ := EKS("test").GetInfo(context.Background())
	if !eks.Has(sdk.CapScale) || !eks.Has(sdk.CapUpgrade) ||
		!reflect.DeepEqual(eks.Upgrades, []sdk.Upgrade{{From: "1.35", To: []string{"1.36"}}}) {
		t.Errorf("aws-eks: capabilities %v, upgrades %v", eks.Capabilities, eks.Upgrades)
	}
	vanilla, _ := Vanilla("test").GetInfo(context.Background())
	if !vanilla.Has(sdk.CapScale) || vanilla.Has(sdk.CapUpgrade) || len(vanilla.Upgrades) != 0 {
		t.Errorf("aws-vanilla: capabilities %v, upgrades %v", vanilla.Capabilities, vanilla.Upgrades)
	}
	for _, info := range []sdk.Info{eks, vanilla} {
		if err := sdk.CheckNodeCount(info, 101); len(sdk.FieldErrors(err)) != 1 || sdk.FieldErrors(err)[0].Field != "nodeCount" {
			t.Errorf("%s: 101 nodes: %v, want refused naming nodeCount", info.Name, err)
		}
	}
	op := operation{Action: actionUpdate, ClusterID: "c1", Region: "eu-north-1", Workers: 3, Version: "1.36", Generation: 4}
	if back, err := parseOperation(op.String()); err != nil || back != op {
		t.Errorf("update operation %q read back as %+v, %v", op.String(), back, err)
	}
}
