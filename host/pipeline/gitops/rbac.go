package gitops

import (
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	readVerbs  = []string{"get", "list", "watch"}
	writeVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// controllerRules are the host-cluster-controller's permissions, the same as
// config/rbac/role.yaml (generated from its RBAC markers).
var controllerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create", "delete", "get", "list", "update", "watch"}},
	{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
		Verbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
	{APIGroups: []string{"kubeopera.io"}, Resources: []string{"hostclusters"}, Verbs: []string{"get", "list", "patch", "update", "watch"}},
	{APIGroups: []string{"kubeopera.io"}, Resources: []string{"hostclusters/finalizers"}, Verbs: []string{"update"}},
	{APIGroups: []string{"kubeopera.io"}, Resources: []string{"hostclusters/status"}, Verbs: []string{"get", "patch", "update"}},
}

// serverClusterRules let the server inspect the cluster it runs in (self
// registration, health) and hand clusters to the controller as HostClusters.
var serverClusterRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"nodes", "pods", "namespaces"}, Verbs: readVerbs},
	{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"create"}},
	{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"nodes", "pods"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"kubeopera.io"}, Resources: []string{"hostclusters"}, Verbs: writeVerbs},
}

// serverNamespaceRules: the server keeps pasted kubeconfigs as Secrets in
// its own namespace only.
var serverNamespaceRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: writeVerbs},
}

func serviceAccount(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: NamespaceSystem},
	}
}

func controllerRBAC() []any {
	return []any{clusterRole(ControllerName, controllerRules), clusterRoleBinding(ControllerName)}
}

func serverRBAC() []any {
	return []any{
		clusterRole(ServerName, serverClusterRules), clusterRoleBinding(ServerName),
		&rbacv1.Role{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"},
			ObjectMeta: metav1.ObjectMeta{Name: ServerName, Namespace: NamespaceSystem},
			Rules:      serverNamespaceRules,
		},
		&rbacv1.RoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
			ObjectMeta: metav1.ObjectMeta{Name: ServerName, Namespace: NamespaceSystem},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: ServerName},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ServerName, Namespace: NamespaceSystem}},
		},
	}
}

func clusterRole(name string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules:      rules,
	}
}

// clusterRoleBinding binds the ClusterRole name to the ServiceAccount name.
func clusterRoleBinding(name string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: NamespaceSystem}},
	}
}
