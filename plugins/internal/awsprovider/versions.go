package awsprovider

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// KubernetesVersion is one Kubernetes minor version a plugin offers.
type KubernetesVersion struct {
	// Minor is the minor version, e.g. "1.36".
	Minor string
	// SupportedUntil is the last day the version is supported: upstream's
	// end of life (vanilla) or the end of EKS standard support (EKS);
	// after it, vanilla gets no security fixes and EKS bills extended
	// support.
	SupportedUntil string
}

// VersionTable is the Kubernetes versions one plugin offers and its
// default, as its cloud supported them on CheckedOn. Update it when a
// minor is released or leaves support.
type VersionTable struct {
	CheckedOn string
	Default   string
	Versions  []KubernetesVersion
}

// VanillaVersions follow upstream's supported minors
// (kubernetes.io/releases): the three newest, each until its end of life.
// Every one runs on containerd 2.x (bootstrap pins the release; Kubernetes
// 1.36 and later no longer support containerd 1.x).
var VanillaVersions = VersionTable{
	CheckedOn: "2026-11-30",
	Default:   "1.36",
	Versions: []KubernetesVersion{
		{Minor: "1.37", SupportedUntil: "2027-10-28"},
		{Minor: "1.36", SupportedUntil: "2027-06-28"},
		{Minor: "1.35", SupportedUntil: "2027-02-28"},
	},
}

// EKSVersions are the minors in EKS standard support with months of it
// left (1.34's ends 2026-12-02; 1.31 can no longer be created, 1.32 and
// 1.33 bill extended support). Validate asks EKS itself
// (DescribeClusterVersions) whether the choice is in standard support in
// the region. 1.36's date is 14 months after its EKS release, an estimate.
var EKSVersions = VersionTable{
	CheckedOn: "2026-11-30",
	Default:   "1.35",
	Versions: []KubernetesVersion{
		{Minor: "1.36", SupportedUntil: "2027-07-31"},
		{Minor: "1.35", SupportedUntil: "2027-03-27"},
	},
}

// Minors lists the table's minor versions, newest first.
func (t VersionTable) Minors() []string {
	out := make([]string, len(t.Versions))
	for i, v := range t.Versions {
		out[i] = v.Minor
	}
	return out
}

var versionRE = regexp.MustCompile(`^v?(1\.[0-9]+)(\.[0-9]+)?$`)

// Resolve reads a kubernetesVersion input: a minor ("1.36") or a patch
// release ("1.36.1", "v1.36.1"). It returns the minor and the patch
// version without "v" ("" when only a minor was given), or an error saying
// what to use.
func (t VersionTable) Resolve(s string) (minor, patch string, err error) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", fmt.Errorf("%q is not a Kubernetes version; use a minor such as %s or a patch release such as %s.0",
			s, t.Default, t.Default)
	}
	if !slices.Contains(t.Minors(), m[1]) {
		return "", "", fmt.Errorf("%s is not offered: use one of %s (supported as of %s)",
			m[1], strings.Join(t.Minors(), ", "), t.CheckedOn)
	}
	if m[2] != "" {
		patch = m[1] + m[2]
	}
	return m[1], patch, nil
}
