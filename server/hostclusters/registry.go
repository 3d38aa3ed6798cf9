// Package hostclusters is how the REST server hands clusters to the
// host-cluster-controller: it creates HostCluster objects (and the Secret
// holding a connect kubeconfig) on the management cluster, lists their
// phases for sync-on-read, and deletes them on disconnect.
package hostclusters

import (
	"context"
	"errors"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Namespace holds every HostCluster.
const Namespace = v1alpha1.Namespace

// Finalizer is the host-cluster-controller's (host/controller.Finalizer;
// a test keeps the two equal). The server sets it when it creates a
// HostCluster, so no HostCluster is ever deleted without its cleanup.
const Finalizer = "kubeopera.io/cleanup"

// ErrNotConfigured is returned by every call when the server has no
// management cluster.
var ErrNotConfigured = errors.New("no management cluster configured: start the server with --kubeconfig " +
	"(or inside a cluster) to connect or provision clusters")

// ErrNoHostCluster is returned by Teardown for a cluster without a
// HostCluster.
var ErrNoHostCluster = errors.New("no HostCluster")

// ErrTeardownFailed is returned by Retry for a cluster whose teardown
// failed: that is retried by asking for the teardown again.
var ErrTeardownFailed = errors.New("its teardown failed")

// Mode says how a HostCluster comes to exist.
type Mode string

// The modes.
const (
	ConnectExisting  Mode = "connect_existing"
	ProvisionVanilla Mode = "provision_vanilla"
	ProvisionEKS     Mode = "provision_eks"
	// Provision is a cluster made by any other provider plugin.
	Provision Mode = "provision"
)

// Spec is what the server asks the controller to do for one cluster.
type Spec struct {
	// ID is clusters.id and the HostCluster's name.
	ID string
	// DisplayName is clusters.name, shown by kubectl next to the ID.
	DisplayName string
	Mode        Mode
	Provider    string
	Region      string
	// Kubeconfig is the pasted kubeconfig of a connect, stored unchanged in
	// the Secret KubeconfigSecretName(ID).
	Kubeconfig []byte
	// Plugin, Topology, Inputs and CredentialRef describe a provision.
	Plugin        string
	Topology      string
	Inputs        map[string]string
	CredentialRef string
	// SecretInputs are the inputs the plugin declares secret: they go into
	// the Secret SecretInputsName(ID), not into the HostCluster.
	SecretInputs map[string]string

	GitOpsRepoURL           string
	GitOpsPath              string
	GitCredentialsSecretRef string
	Domain                  string
	RegistryPullSecretRef   string
	AdminEmail              string
	AdminUsername           string
}

// Observed is a HostCluster's state as the server shows it: the phase
// v1alpha1.DerivePhase gives for the live object (so a request recorded
// on it shows at once) and the controller's last report.
type Observed struct {
	Phase   string
	Message string
	// KubernetesVersion, NodeCount and ReadyNodeCount are the live
	// inventory the controller last read ("" and 0 until it has).
	KubernetesVersion string
	NodeCount         int
	ReadyNodeCount    int
	// ClusterUID is the kube-system namespace UID the controller read
	// from the cluster ("" until it has): which cluster it is.
	ClusterUID string
}

// Registry creates, observes and removes HostClusters.
type Registry interface {
	Create(ctx context.Context, s Spec) error
	// List returns the observed state of every HostCluster by ID, in one
	// call to the management cluster.
	List(ctx context.Context) (map[string]Observed, error)
	// Delete removes the HostCluster; its finalizer cleans up the rest.
	// Deleting one that does not exist is not an error.
	Delete(ctx context.Context, id string) error
	// Exists reads the management cluster itself (not a cache): whether
	// the HostCluster id is there. The server removes a row only when it
	// is not (see Orphaned).
	Exists(ctx context.Context, id string) (bool, error)
	// Teardown asks the controller to destroy a provisioned cluster's
	// cloud resources through its plugin, then remove it; asking again
	// retries a teardown that failed. It returns the state the request
	// put the cluster in.
	Teardown(ctx context.Context, id string) (Observed, error)
	// Update sets the HostCluster's desired node count (nil keeps it) and
	// Kubernetes version ("" keeps it) of a Ready cluster; the controller
	// moves the cluster there through its plugin.
	Update(ctx context.Context, id string, nodeCount *int, version string) (Observed, error)
	// Retry asks the controller to try a Failed cluster again from the
	// step that failed. One whose teardown failed is ErrTeardownFailed
	// (ask for the teardown again instead).
	Retry(ctx context.Context, id string) (Observed, error)
}

// Every request (Teardown, Update, Retry) is written onto the version of
// the HostCluster it was checked against (its resourceVersion), so of two
// requests that conflict exactly one is accepted: the other is a
// *RefusedError (the cluster's phase no longer allows it) or ErrChanged.
// A missing HostCluster is ErrNoHostCluster.

// RefusedError refuses a request the cluster's phase does not allow.
type RefusedError struct {
	Phase  string
	Reason string
}

func (e *RefusedError) Error() string { return e.Reason }

// ErrChanged: the HostCluster changed between the check and the write (a
// concurrent request won); the caller answers 409 and may ask again.
var ErrChanged = errors.New("the cluster changed while the request was checked: another request was accepted first; reload and ask again")

// KubeconfigSecretName is the Secret holding a cluster's kubeconfig, the
// pasted one of a connect or the one a provider returned.
func KubeconfigSecretName(id string) string { return v1alpha1.KubeconfigSecretName(id) }

// SecretInputsName is the Secret holding a provisioned cluster's secret
// inputs, one key per input.
func SecretInputsName(id string) string { return v1alpha1.SecretInputsName(id) }

// KubeconfigSecretKey is the key of the kubeconfig in that Secret.
const KubeconfigSecretKey = v1alpha1.KubeconfigSecretKey

// Unconfigured is the Registry of a server without a management cluster.
type Unconfigured struct{}

// Create fails with ErrNotConfigured.
func (Unconfigured) Create(context.Context, Spec) error { return ErrNotConfigured }

// List reports no HostClusters: there is nowhere they could be.
func (Unconfigured) List(context.Context) (map[string]Observed, error) { return nil, nil }

// Delete has nothing to delete.
func (Unconfigured) Delete(context.Context, string) error { return nil }

// Exists: there is nowhere a HostCluster could be.
func (Unconfigured) Exists(context.Context, string) (bool, error) { return false, ErrNotConfigured }

// Teardown fails with ErrNotConfigured.
func (Unconfigured) Teardown(context.Context, string) (Observed, error) {
	return Observed{}, ErrNotConfigured
}

// Update fails with ErrNotConfigured.
func (Unconfigured) Update(context.Context, string, *int, string) (Observed, error) {
	return Observed{}, ErrNotConfigured
}

// Retry refuses: without a management cluster there is nothing to retry.
func (Unconfigured) Retry(context.Context, string) (Observed, error) {
	return Observed{}, ErrNotConfigured
}
