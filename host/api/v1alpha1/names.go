package v1alpha1

// ClusterIDLabel carries clusters.id on every object made for a cluster:
// its kubeconfig Secret on the host, its Flux objects on the target.
const ClusterIDLabel = "kubeopera.io/cluster-id"

// KubeconfigSecretKey is the key of the kubeconfig in its Secret.
const KubeconfigSecretKey = "kubeconfig"

// KubeconfigSecretName is the Secret holding a cluster's kubeconfig: the one
// pasted at connect, or the one its provider returned.
func KubeconfigSecretName(clusterID string) string { return "hostcluster-" + clusterID + "-kubeconfig" }

// KubeconfigExpiresAnnotation is set on a kubeconfig Secret whose credential
// expires (RFC 3339): the controller refreshes it through the provider
// before then, so later phases and the server's reads keep working.
const KubeconfigExpiresAnnotation = "kubeopera.io/expires-at"

// AdminPasswordSecretName is the Secret on the host cluster holding the
// generated password of a cluster's first admin (key "password").
func AdminPasswordSecretName(clusterID string) string {
	return "hostcluster-" + clusterID + "-admin-password"
}
