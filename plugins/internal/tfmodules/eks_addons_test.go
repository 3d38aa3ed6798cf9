package tfmodules

import (
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/plugins/internal/upstream"
)

// vpc-cni, kube-proxy and CoreDNS are EKS add-ons whose builds follow the
// control plane's minor, not the node group's: an upgrade's first apply
// (control plane on the new minor, nodes still on the old) moves them
// with the control plane, so their skew never grows past one upgrade.
func TestEKSCoreAddonsMoveWithTheControlPlane(t *testing.T) {
	files := moduleFiles(t, "eks")
	if got := expr(t, files, "for_each", "resource", "aws_eks_addon", "core"); got != "var.addon_versions" {
		t.Errorf("aws_eks_addon.core for_each = %s, want var.addon_versions", got)
	}
	if got := expr(t, files, "addon_version", "resource", "aws_eks_addon", "core"); got != "each.value" {
		t.Errorf("aws_eks_addon.core addon_version = %s, want each.value", got)
	}
	for _, tc := range []struct{ name, version, node string }{
		{"created on 1.35", "1.35", ""},
		{"an upgrade's first apply: control plane 1.36, nodes 1.35", "1.36", "1.35"},
		{"an upgrade's second apply", "1.36", "1.36"},
	} {
		in := eksInput()
		in.KubernetesVersion, in.NodeVersion = tc.version, tc.node
		m, err := EKS(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		root := unaligned(string(m.Files["main.tf"]))
		want, ok := upstream.EKSAddons(tc.version)
		if !ok {
			t.Fatalf("%s: no add-on row for %s", tc.name, tc.version)
		}
		for _, name := range upstream.EKSAddonNames {
			if line := name + ` = "` + want[name] + `"`; !strings.Contains(root, line) {
				t.Errorf("%s: the root lacks %s (the control plane's minor's build):\n%s", tc.name, line, root)
			}
		}
	}
}
