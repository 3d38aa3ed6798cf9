package gitops

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	rbacv1 "k8s.io/api/rbac/v1"
)

// The tree binds each proxy group to its built-in ClusterRole, so a
// KubeOpera viewer may read, an operator edit and an admin do anything.
func TestTreeBindsProxyGroupsToBuiltInRoles(t *testing.T) {
	tree := generate(t, prodParams())
	body, ok := tree[prodParams().Path+"/infrastructure/kubeopera-access.yaml"]
	if !ok {
		t.Fatal("infrastructure/kubeopera-access.yaml is missing")
	}
	got := map[string]string{}
	for _, doc := range strings.Split(string(body), "---\n") {
		var b rbacv1.ClusterRoleBinding
		if err := yaml.Unmarshal([]byte(doc), &b); err != nil {
			t.Fatal(err)
		}
		if len(b.Subjects) != 1 || b.Subjects[0].Kind != rbacv1.GroupKind || b.RoleRef.Kind != "ClusterRole" {
			t.Fatalf("binding %s: subjects %+v, roleRef %+v", b.Name, b.Subjects, b.RoleRef)
		}
		got[b.Subjects[0].Name] = b.RoleRef.Name
	}
	want := map[string]string{"kubeopera:viewer": "view", "kubeopera:operator": "edit", "kubeopera:admin": "cluster-admin"}
	for g, role := range want {
		if got[g] != role {
			t.Errorf("group %s is bound to %q, want %q", g, got[g], role)
		}
	}
	if len(got) != len(want) {
		t.Errorf("bindings %v, want exactly %v", got, want)
	}
}
