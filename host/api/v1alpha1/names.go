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

// TeardownAnnotation asks for a provisioned cluster's teardown: its value
// is the request's time (RFC 3339). The controller runs the provider
// plugin's Destroy (phase TearingDown), then deletes the HostCluster; a new
// value retries a teardown that failed.
const TeardownAnnotation = "kubeopera.io/teardown"

// DestroyOperationAnnotation keeps the ID of the provider's Destroy
// operation, so a restarted controller polls it and never starts another.
const DestroyOperationAnnotation = "kubeopera.io/destroy-operation-id"

// UpdateOperationAnnotation keeps the ID of the provider's Update
// operation while it runs, so a restarted controller resumes it.
const UpdateOperationAnnotation = "kubeopera.io/update-operation-id"

// RetryAnnotation asks for a Failed cluster to be tried again: its value
// is the request's time (RFC 3339). The controller takes a request up once,
// recording its value in status.retried, and starts the step that failed
// again (a provisioned cluster's Provision, for the same cluster ID, when
// that is what failed). A new value is a new request.
const RetryAnnotation = "kubeopera.io/retry"

// TeardownFailedAnnotation holds the TeardownAnnotation value whose Destroy
// failed: that request is not tried again; a new one is.
const TeardownFailedAnnotation = "kubeopera.io/teardown-failed"

// SetupSecretName is the Secret on the host cluster keeping the secret the
// first-admin call to a cluster's new KubeOpera carries (key SetupSecretKey);
// the same value is the target's Secret kubeopera-setup.
func SetupSecretName(clusterID string) string { return "hostcluster-" + clusterID + "-setup-secret" }

// SecretInputsName is the Secret holding a provisioned cluster's secret
// inputs, one key per input; the finalizer deletes it with the cluster.
func SecretInputsName(clusterID string) string { return "hostcluster-" + clusterID + "-inputs" }

// SetupSecretKey is the key of the setup secret in its Secrets.
const SetupSecretKey = "setup-secret"

// SetupSecretHeader carries the setup secret on POST /api/v1/setup/admin.
const SetupSecretHeader = "X-KubeOpera-Setup-Secret"

// AutoRetriesAnnotation counts the automatic retries of a provisioning
// that failed with class RETRYABLE (the controller starts it again, with
// backoff, up to a cap); a person's retry starts the count again.
const AutoRetriesAnnotation = "kubeopera.io/auto-retries"
