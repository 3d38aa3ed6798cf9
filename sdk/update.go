package sdk

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Updater is implemented by providers that can change a running cluster
// (day 2). It is optional: Serve type-asserts it, and a Provider without it
// answers Unimplemented, so plugins built before it keep compiling and
// working. A provider that implements it declares CapScale, CapUpgrade or
// both.
type Updater interface {
	// Update starts moving cluster ClusterID to the node count and
	// Kubernetes version in the request and returns at once; Status follows
	// the operation. It is idempotent: the same cluster and the same desired
	// values give the same operation ID. A version Info.Upgrades does not
	// allow from the cluster's current one (a downgrade, a skipped minor) is
	// an InvalidInput error naming "kubernetesVersion"; a node count outside
	// the bounds of Info.NodeCountInput one naming "nodeCount"; a change the
	// provider cannot make at all is Unimplemented.
	Update(ctx context.Context, req UpdateRequest) (Operation, error)
}

// UpdateRequest asks for a running cluster to change. A zero field keeps
// what the cluster has.
type UpdateRequest struct {
	ClusterID   string
	Inputs      map[string]string
	Credentials Credentials
	// NodeCount is the desired number of worker nodes; 0 keeps the current.
	NodeCount int
	// KubernetesVersion is the desired version; "" keeps the current.
	KubernetesVersion string
	// CurrentKubernetesVersion is the version the host last observed on
	// the cluster ("" when it does not know): the version to upgrade from.
	CurrentKubernetesVersion string
	// CurrentInputs are the cluster's inputs as it is now: Inputs (those
	// it was provisioned with, which earlier Updates do not change) with
	// the inputs Info.NodeCountInput and Info.VersionInput set to what the
	// host observed. Nil from a host older than this field.
	CurrentInputs map[string]string
}

// Upgrade lists the versions a cluster at version From can move to.
type Upgrade struct {
	From string
	To   []string
}

// CheckUpgrade says whether info allows moving a cluster from version
// from to version to, with a message a person can act on when it does not:
// a provider without CapUpgrade, a downgrade, a skipped minor and a pair
// Info.Upgrades does not list are refused. The host checks the same before
// it calls Update; providers call it first in Update.
func CheckUpgrade(info Info, from, to string) error {
	if SameVersion(to, from) {
		return nil
	}
	if !info.Has(CapUpgrade) {
		return Unimplemented("provider %s cannot upgrade a cluster's Kubernetes version (no %q capability)", info.Name, CapUpgrade)
	}
	field := func(format string, args ...any) error {
		return InvalidInput(FieldError{Field: "kubernetesVersion", Message: fmt.Sprintf(format, args...)})
	}
	fmaj, fmin, ferr := minorOf(from)
	tmaj, tmin, terr := minorOf(to)
	switch {
	case terr != nil:
		return field("%q is not a Kubernetes version (want e.g. 1.37 or v1.37.2)", to)
	case ferr == nil && (tmaj < fmaj || tmaj == fmaj && tmin < fmin):
		return field("%s is older than the cluster's %s: Kubernetes cannot be downgraded", to, from)
	case ferr == nil && tmaj == fmaj && tmin > fmin+1:
		return field("%s skips a minor version after the cluster's %s: upgrade one minor version at a time", to, from)
	}
	for _, u := range info.Upgrades {
		if SameVersion(u.From, from) && slices.ContainsFunc(u.To, func(v string) bool { return SameVersion(v, to) && SameVersion(to, v) }) {
			return nil
		}
	}
	return field("provider %s cannot move a cluster from %s to %s (it offers: %s)", info.Name, from, to, upgradesText(info.Upgrades, from))
}

// CheckNodeCount says whether info allows scaling to n worker nodes: the
// provider declares CapScale and n is within the bounds of its
// NodeCountInput.
func CheckNodeCount(info Info, n int) error {
	if !info.Has(CapScale) {
		return Unimplemented("provider %s cannot change a cluster's node count (no %q capability)", info.Name, CapScale)
	}
	for _, f := range info.Schema {
		if f.Name == info.NodeCountInput {
			if msg := checkValue(f, strconv.Itoa(n)); msg != "" {
				return InvalidInput(FieldError{Field: "nodeCount", Message: msg})
			}
			return nil
		}
	}
	if n < 1 {
		return InvalidInput(FieldError{Field: "nodeCount", Message: fmt.Sprintf("must be at least 1, got %d", n)})
	}
	return nil
}

// minorOf parses "1.37", "v1.37" or "v1.37.2" into major and minor.
func minorOf(v string) (int, int, error) {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, fmt.Errorf("version %q: want major.minor[.patch]", v)
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return 0, 0, fmt.Errorf("version %q: %q is not a number", v, p)
		}
		n[i] = x
	}
	return n[0], n[1], nil
}

// SameVersion reports whether version want (1.37, v1.37 or v1.37.2)
// names the version have is at: equal but for a leading "v", or have is a
// patch release of want's minor version.
func SameVersion(want, have string) bool {
	w, h := strings.TrimPrefix(want, "v"), strings.TrimPrefix(have, "v")
	return w == h || strings.HasPrefix(h, w+".")
}

func upgradesText(ups []Upgrade, from string) string {
	if to := UpgradeTargets(Info{Upgrades: ups}, from); len(to) > 0 {
		return strings.Join(to, ", ")
	}
	return "no upgrade from " + from
}

// UpgradeTargets are the versions info's upgrade paths offer a cluster at
// version from (none when from is unknown), as CheckUpgrade accepts them.
func UpgradeTargets(info Info, from string) []string {
	if from == "" {
		return nil
	}
	for _, u := range info.Upgrades {
		if SameVersion(u.From, from) && len(u.To) > 0 {
			return u.To
		}
	}
	return nil
}

// NodeCountBounds are the node counts CheckNodeCount accepts: the bounds
// of info's NodeCountInput field, else at least 1 (max 0: no upper bound).
func NodeCountBounds(info Info) (lo, hi int) {
	lo = 1
	for _, f := range info.Schema {
		if f.Name != info.NodeCountInput {
			continue
		}
		if f.Min != nil {
			lo = int(*f.Min)
		}
		if f.Max != nil {
			hi = int(*f.Max)
		}
	}
	return lo, hi
}
