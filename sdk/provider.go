// Package sdk is the public SDK for KubeOpera provider plugins.
//
// A provider plugin is a separate program that creates Kubernetes clusters
// for one cloud or topology. It implements Provider and calls Serve from its
// main function; the KubeOpera controller host starts it, talks to it over
// gRPC (hashicorp/go-plugin with mutual TLS) and stops it. This package is the
// only KubeOpera import a plugin needs.
//
// Every method takes a context first and returns plain Go types. Errors that
// the host should act on are built with the constructors in errors.go
// (InvalidInput, Unavailable, FailedPrecondition, NotFound, Unimplemented):
// they cross the wire as gRPC status codes and come back as *Error.
package sdk

import (
	"context"
	"time"
)

// Version is the version of this SDK. The host sees it in Info.SDKVersion.
const Version = "0.1.0"

// ProtocolVersion is the plugin protocol this SDK speaks
// (kubeopera.provider.v1). The host and a plugin must share one.
const ProtocolVersion = 1

// Provider is what a plugin implements. The host calls it concurrently:
// implementations must be safe for concurrent use. A plugin keeps no state
// between calls that it cannot find again from an operation ID, so a plugin
// restart loses nothing.
type Provider interface {
	// GetInfo describes the provider: who it is, whether it is available and
	// which inputs it takes. It must not do I/O against a cloud.
	GetInfo(ctx context.Context) (Info, error)
	// Validate checks inputs and credentials before anything is created and
	// returns an InvalidInput error listing every bad field.
	Validate(ctx context.Context, req ValidateRequest) error
	// Provision starts creating a cluster and returns at once. It is
	// idempotent: the same ClusterID always yields the same operation ID.
	Provision(ctx context.Context, req ProvisionRequest) (Operation, error)
	// Status reports an operation started by Provision, Destroy or Update
	// (see Updater). An unknown operation ID is a NotFound error.
	Status(ctx context.Context, req StatusRequest) (OperationStatus, error)
	// Kubeconfig returns an admin kubeconfig for a provisioned cluster.
	Kubeconfig(ctx context.Context, req KubeconfigRequest) (Kubeconfig, error)
	// Destroy starts deleting everything Provision created for a cluster.
	Destroy(ctx context.Context, req DestroyRequest) (Operation, error)
}

// Availability says whether a provider can be used today.
type Availability string

const (
	// Available providers can provision clusters.
	Available Availability = "AVAILABLE"
	// Soon providers are listed so users see them coming; every lifecycle
	// call fails with a FailedPrecondition error.
	Soon Availability = "SOON"
)

// Availabilities lists every Availability: the REST API documents the
// field with this list as its enum.
var Availabilities = []Availability{Available, Soon}

// Capability names a lifecycle call a provider implements. The conformance
// kit checks that calls without a declared capability answer Unimplemented
// or FailedPrecondition.
type Capability string

// The capabilities a provider can declare.
const (
	CapValidate   Capability = "validate"
	CapProvision  Capability = "provision"
	CapStatus     Capability = "status"
	CapKubeconfig Capability = "kubeconfig"
	CapDestroy    Capability = "destroy"
	// CapScale: Update changes the number of worker nodes (see Updater).
	CapScale Capability = "scale"
	// CapUpgrade: Update moves the cluster to another Kubernetes version,
	// along Info.Upgrades (see Updater).
	CapUpgrade Capability = "upgrade"
)

// Capabilities lists every Capability.
var Capabilities = []Capability{CapValidate, CapProvision, CapStatus, CapKubeconfig, CapDestroy, CapScale, CapUpgrade, CapEstimate}

// Info describes a provider.
type Info struct {
	// Name is the short identifier, e.g. "aws-eks"; the plugin binary is
	// named kubeopera-provider-<Name>.
	Name string
	// DisplayName is what the dashboard shows, e.g. "Amazon EKS".
	DisplayName string
	// Cloud is the cloud the provider targets, e.g. "aws".
	Cloud string
	// Topologies lists the cluster shapes offered, e.g. "kubeadm".
	Topologies   []string
	Availability Availability
	// PluginVersion is the plugin's own version.
	PluginVersion string
	// SDKVersion and ProtocolVersion are filled in by Serve.
	SDKVersion      string
	ProtocolVersion int
	Schema          []InputField
	Capabilities    []Capability
	// RegionInput names the input of Schema that holds the region (or
	// location, or data centre) the cluster runs in; KubeOpera records its
	// value as the cluster's region. Empty when the provider has none.
	RegionInput string
	// CredentialKinds are the kinds of stored credential this provider
	// accepts. KubeOpera's credential store accepts any kind a loaded
	// plugin declares, checks it against the declaration and seals it; an
	// input of type CredentialRef then names one.
	CredentialKinds []CredentialKind
	// ClusterSource is what KubeOpera records as the source of the clusters
	// this provider creates. Leave it empty: the cluster is recorded as
	// "provisioned" together with the plugin's name. KubeOpera's own AWS
	// plugins set the product's historical sources (provisioned_vanilla,
	// provisioned_eks); any other value is treated as empty.
	ClusterSource string
	// NodeCountInput names the Int input of Schema that holds the number of
	// worker nodes. With CapScale, its Min and Max bound what Update takes.
	NodeCountInput string
	// VersionInput names the input of Schema that holds the Kubernetes
	// version, when the provider has one.
	VersionInput string
	// Upgrades says which Kubernetes versions Update (CapUpgrade) can move
	// a cluster to from which; CheckUpgrade reads it.
	Upgrades []Upgrade
}

// Has reports whether the provider declares capability c.
func (i Info) Has(c Capability) bool {
	for _, have := range i.Capabilities {
		if have == c {
			return true
		}
	}
	return false
}

// Credentials carry a cloud credential resolved by the host just before the
// call. Plugins must not store or log them.
type Credentials map[string]string

// ValidateRequest asks whether inputs and credentials are usable.
type ValidateRequest struct {
	Inputs      map[string]string
	Credentials Credentials
}

// ProvisionRequest asks for a cluster.
type ProvisionRequest struct {
	// ClusterID is KubeOpera's ID for the cluster; it is the idempotency key.
	ClusterID   string
	Inputs      map[string]string
	Credentials Credentials
}

// DestroyRequest asks for everything created for ClusterID to be deleted.
type DestroyRequest struct {
	ClusterID   string
	Inputs      map[string]string
	Credentials Credentials
}

// Operation identifies long-running work in a provider.
type Operation struct {
	ID string
}

// StatusRequest asks how an operation is going.
type StatusRequest struct {
	OperationID string
	Credentials Credentials
}

// State is where an operation is.
type State string

// The operation states.
const (
	Pending   State = "PENDING"
	Running   State = "RUNNING"
	Succeeded State = "SUCCEEDED"
	Failed    State = "FAILED"
)

// ErrorClass tells the host what to do about a failed operation.
type ErrorClass string

// The error classes of a failed operation.
const (
	// NoError is the class of an operation that has not failed.
	NoError ErrorClass = ""
	// UserFixable failures need a person: to change inputs or
	// credentials, or to ask for a retry that costs money (one that
	// replaces cloud instances). The host never retries them unattended.
	UserFixable ErrorClass = "USER_FIXABLE"
	// Retryable failures may succeed when the operation is started again.
	Retryable ErrorClass = "RETRYABLE"
	// Terminal failures will not succeed on retry.
	Terminal ErrorClass = "TERMINAL"
)

// OperationStatus is a snapshot of an operation.
type OperationStatus struct {
	OperationID string
	State       State
	// Message is a sentence a person can act on, e.g. "creating VPC (2/9)".
	Message string
	// Progress runs from 0 to 100.
	Progress int
	// LogTail holds the last lines of the operation's log.
	LogTail []string
	// ErrorClass is set when State is Failed.
	ErrorClass ErrorClass
	// NodeCount is the number of worker nodes the cluster has after the
	// operation (0 when the provider does not know); the host shows it as
	// observed once the operation succeeded.
	NodeCount int
	// KubernetesVersion is the cluster's version after the operation
	// ("" when the provider does not know).
	KubernetesVersion string
}

// KubeconfigRequest asks for the kubeconfig of a provisioned cluster.
type KubeconfigRequest struct {
	OperationID string
	Credentials Credentials
}

// Kubeconfig is an admin kubeconfig and when its credential expires.
type Kubeconfig struct {
	Data []byte
	// ExpiresAt is the zero time when the credential does not expire.
	ExpiresAt time.Time
}
