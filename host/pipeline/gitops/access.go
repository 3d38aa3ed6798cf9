package gitops

import (
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// AccessBindings bind the groups KubeOpera's proxy impersonates users into
// (kubeopera:viewer, kubeopera:operator, kubeopera:admin) to the built-in
// ClusterRoles view, edit and cluster-admin, so what a KubeOpera role may
// do on a cluster is plain RBAC there ('kubectl auth can-i --list' tells
// the truth). Each binding is named after its group.
func AccessBindings() []*rbacv1.ClusterRoleBinding {
	groups := make([]string, 0, len(v1alpha1.AccessRoles))
	for g := range v1alpha1.AccessRoles {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	out := make([]*rbacv1.ClusterRoleBinding, 0, len(groups))
	for _, g := range groups {
		out = append(out, &rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: g},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: v1alpha1.AccessRoles[g]},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: g}},
		})
	}
	return out
}

func accessObjects() []any {
	var out []any
	for _, b := range AccessBindings() {
		out = append(out, b)
	}
	return out
}
