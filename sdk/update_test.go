package sdk

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// scaler is a Provider that implements Updater and records what it got.
type scaler struct {
	failing
	got UpdateRequest
}

func (s *scaler) Update(_ context.Context, r UpdateRequest) (Operation, error) {
	s.got = r
	return Operation{ID: "update:" + r.ClusterID}, nil
}

// Update is optional: a Provider without it answers Unimplemented over the
// wire, one with it gets every field of the request.
func TestUpdateIsAnOptionalInterface(t *testing.T) {
	old := dial(t, failing{})
	_, err := old.(Updater).Update(context.Background(), UpdateRequest{ClusterID: "c", NodeCount: 3})
	if !errors.Is(err, ErrUnimplemented) {
		t.Errorf("Update of a provider without Updater = %v (kind %q), want Unimplemented", err, KindOf(err))
	}

	impl := &scaler{}
	op, err := dial(t, impl).(Updater).Update(context.Background(), UpdateRequest{ClusterID: "c", NodeCount: 3,
		KubernetesVersion: "1.38", Inputs: map[string]string{"a": "b"}, Credentials: Credentials{"k": "v"},
		CurrentKubernetesVersion: "v1.37.2", CurrentInputs: map[string]string{"a": "c"}})
	if err != nil || op.ID != "update:c" {
		t.Fatalf("Update = %v, %v", op, err)
	}
	if impl.got.NodeCount != 3 || impl.got.KubernetesVersion != "1.38" || impl.got.Inputs["a"] != "b" || impl.got.Credentials["k"] != "v" ||
		impl.got.CurrentKubernetesVersion != "v1.37.2" || impl.got.CurrentInputs["a"] != "c" {
		t.Errorf("the provider got %+v", impl.got)
	}
}

func TestCheckUpgrade(t *testing.T) {
	info := Info{Name: "p", Capabilities: []Capability{CapUpgrade},
		Upgrades: []Upgrade{{From: "1.36", To: []string{"1.37"}}, {From: "1.37", To: []string{"1.38"}}}}
	cases := []struct {
		from, to string
		kind     Kind // "" for allowed
		says     string
	}{
		{"1.36", "1.37", "", ""},
		{"v1.36.4", "1.37", "", ""},
		{"v1.37.2", "1.37", "", ""},
		{"1.37", "1.37", "", ""},
		{"1.37", "1.36", KindInvalidInput, "cannot be downgraded"},
		{"1.36", "1.38", KindInvalidInput, "skips a minor version"},
		{"1.38", "1.39", KindInvalidInput, "no upgrade from 1.38"},
		{"1.37", "latest", KindInvalidInput, "is not a Kubernetes version"},
	}
	for _, c := range cases {
		err := CheckUpgrade(info, c.from, c.to)
		allowed := c.kind == "" && err == nil
		refusedRightly := err != nil && KindOf(err) == c.kind && strings.Contains(err.Error(), c.says)
		if !allowed && !refusedRightly {
			t.Errorf("CheckUpgrade(%s → %s) = %v, want kind %q saying %q", c.from, c.to, err, c.kind, c.says)
		}
		if err != nil && FieldErrors(err)[0].Field != "kubernetesVersion" {
			t.Errorf("CheckUpgrade(%s → %s) names field %q", c.from, c.to, FieldErrors(err)[0].Field)
		}
	}
	if err := CheckUpgrade(Info{Name: "p"}, "1.36", "1.37"); !errors.Is(err, ErrUnimplemented) {
		t.Errorf("a provider without %q: %v, want Unimplemented", CapUpgrade, err)
	}
}

func TestCheckNodeCountUsesTheInputsBounds(t *testing.T) {
	info := Info{Name: "p", Capabilities: []Capability{CapScale}, NodeCountInput: "n",
		Schema: []InputField{{Name: "n", Type: Int, Min: Bound(1), Max: Bound(5)}}}
	for n, ok := range map[int]bool{0: false, 1: true, 5: true, 6: false} {
		if err := CheckNodeCount(info, n); (err == nil) != ok {
			t.Errorf("CheckNodeCount(%d) = %v", n, err)
		}
	}
	if err := CheckNodeCount(Info{Name: "p"}, 2); !errors.Is(err, ErrUnimplemented) {
		t.Errorf("a provider without %q: %v, want Unimplemented", CapScale, err)
	}
}

// The bounds and targets the API offers are the ones the checks accept.
func TestBoundsAndTargetsAreWhatTheChecksAccept(t *testing.T) {
	info := Info{Name: "p", Capabilities: []Capability{CapScale, CapUpgrade}, NodeCountInput: "n",
		Schema:   []InputField{{Name: "n", Type: Int, Min: Bound(2), Max: Bound(5)}},
		Upgrades: []Upgrade{{From: "1.36", To: []string{"1.37"}}}}
	lo, hi := NodeCountBounds(info)
	if lo != 2 || hi != 5 || CheckNodeCount(info, lo) != nil || CheckNodeCount(info, hi) != nil ||
		CheckNodeCount(info, lo-1) == nil || CheckNodeCount(info, hi+1) == nil {
		t.Errorf("NodeCountBounds = %d..%d, not the counts CheckNodeCount takes", lo, hi)
	}
	if lo, hi := NodeCountBounds(Info{}); lo != 1 || hi != 0 {
		t.Errorf("NodeCountBounds without a node-count input = %d..%d, want 1 and no maximum", lo, hi)
	}
	to := UpgradeTargets(info, "v1.36.4")
	if len(to) != 1 || CheckUpgrade(info, "v1.36.4", to[0]) != nil {
		t.Errorf("UpgradeTargets(1.36.4) = %v, not what CheckUpgrade takes", to)
	}
	if to := UpgradeTargets(info, ""); to != nil {
		t.Errorf("UpgradeTargets of an unknown version = %v, want none", to)
	}
}
