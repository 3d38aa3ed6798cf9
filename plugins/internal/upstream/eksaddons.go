package upstream

import (
	"fmt"
	"slices"
)

// EKS add-ons the eks module manages beside EBSCSIAddon: left
// self-managed, they stay at the build EKS installed with the cluster, the
// skew grows each upgrade and EKS's upgrade insights end up blocking
// UpdateClusterVersion. Each is pinned per control-plane minor (EKS builds
// of kube-proxy follow the minor); an upgrade's first apply, which moves
// the control plane, moves them to the new minor's row. Only EKS knows
// which builds it offers: Validate asks it (DescribeAddonVersions) for
// every row of the minor when credentials are present.
var eksAddons = map[string]map[string]string{
	"1.35": {"vpc-cni": "v1.21.1-eksbuild.1", "kube-proxy": "v1.35.0-eksbuild.2", "coredns": "v1.13.1-eksbuild.1"},
	"1.36": {"vpc-cni": "v1.21.1-eksbuild.1", "kube-proxy": "v1.36.0-eksbuild.1", "coredns": "v1.13.2-eksbuild.1"},
}

// EKSAddonNames are the add-ons of EKSAddons, in the order they are
// checked and listed.
var EKSAddonNames = []string{"vpc-cni", "kube-proxy", "coredns"}

// EKSAddons returns the pinned build of each of EKSAddonNames for a
// control-plane minor, and whether the minor has a row.
func EKSAddons(minor string) (map[string]string, bool) {
	row, ok := eksAddons[minor]
	return row, ok
}

// EKSAddonMinors lists the minors with a row, oldest first.
func EKSAddonMinors() []string {
	out := make([]string, 0, len(eksAddons))
	for m := range eksAddons {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// eksAddonPins are the table's rows of the EKS add-ons.
func eksAddonPins() []Pin {
	var rows []Pin
	for _, m := range EKSAddonMinors() {
		for _, name := range EKSAddonNames {
			rows = append(rows, Pin{Checked: Checked, Part: fmt.Sprintf("%s EKS add-on (Kubernetes %s)", name, m),
				Version: eksAddons[m][name], Source: "EKS DescribeAddonVersions",
				Proof: "existence only by Validate against AWS (eks:DescribeAddonVersions for the minor)"})
		}
	}
	return rows
}
