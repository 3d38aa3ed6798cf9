package v1alpha1

// The Kubernetes groups KubeOpera's proxy puts its users in on a managed
// cluster (Impersonate-Group), one per role. The GitOps tree binds each to
// a built-in ClusterRole (AccessRoles); the platform team may change the
// bindings in its tree.
const (
	AccessGroupViewer   = "kubeopera:viewer"
	AccessGroupOperator = "kubeopera:operator"
	AccessGroupAdmin    = "kubeopera:admin"
)

// AccessRoles is the built-in ClusterRole each access group is bound to.
var AccessRoles = map[string]string{
	AccessGroupViewer:   "view",
	AccessGroupOperator: "edit",
	AccessGroupAdmin:    "cluster-admin",
}
