package tfmodules

import (
	"strings"
	"testing"
)

// An EKS upgrade is two applies of the same root: the control plane moves
// to kubernetes_version while the node group stays on node_version, then
// both are the new minor. The root passes node_version, the module
// declares it, the cluster's version is kubernetes_version alone and the
// node group's is node_version, falling back to the cluster's.
func TestEKSNodeGroupVersionIsItsOwnVariable(t *testing.T) {
	files := moduleFiles(t, "eks")
	if got := expr(t, files, "version", "resource", "aws_eks_cluster", "this"); got != "var.kubernetes_version" {
		t.Errorf("aws_eks_cluster.this version = %s, want var.kubernetes_version", got)
	}
	if got := expr(t, files, "version", "resource", "aws_eks_node_group", "this"); got != "coalesce(var.node_version, var.kubernetes_version)" {
		t.Errorf("aws_eks_node_group.this version = %s, want node_version falling back to kubernetes_version", got)
	}
	if got := expr(t, files, "default", "variable", "node_version"); got != "null" {
		t.Errorf("variable node_version defaults to %s, want null (the cluster's version)", got)
	}
	for _, tc := range []struct{ node, want string }{
		{"", `node_version = "1.36"`},
		{"1.35", `node_version = "1.35"`},
	} {
		in := eksInput()
		in.NodeVersion = tc.node
		m, err := EKS(in)
		if err != nil {
			t.Fatal(err)
		}
		root := string(m.Files["main.tf"])
		if !strings.Contains(unaligned(root), tc.want) || !strings.Contains(unaligned(root), `kubernetes_version = "1.36"`) {
			t.Errorf("NodeVersion %q: root lacks %q beside kubernetes_version 1.36:\n%s", tc.node, tc.want, root)
		}
	}
	in := eksInput()
	in.NodeVersion = "1.35.2"
	if _, err := EKS(in); err == nil || !strings.Contains(err.Error(), "node version") {
		t.Errorf("a patch release as node version: %v, want it refused", err)
	}
}
