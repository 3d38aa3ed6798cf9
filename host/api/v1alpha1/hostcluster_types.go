package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespace holds every HostCluster.
const Namespace = "kubeopera-system"

// Mode says how a cluster comes under management.
// +kubebuilder:validation:Enum=connect_existing;provision_vanilla;provision_eks;provision
type Mode string

// The modes.
const (
	ModeConnectExisting  Mode = "connect_existing"
	ModeProvisionVanilla Mode = "provision_vanilla"
	ModeProvisionEKS     Mode = "provision_eks"
	// ModeProvision is a cluster made by any other provider plugin, named
	// in spec.provisioning.plugin.
	ModeProvision Mode = "provision"
)

// SecretKeyRef names a key of a Secret in the HostCluster's namespace.
type SecretKeyRef struct {
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// +optional
	Key string `json:"key,omitempty"`
}

// Provisioning says what a provider plugin creates.
// +kubebuilder:validation:XValidation:rule="!has(self.controlPlaneCount) || self.controlPlaneCount % 2 == 1",message="controlPlaneCount must be odd (1, 3, 5 or 7) so etcd keeps quorum"
type Provisioning struct {
	// Plugin is the provider plugin, e.g. aws-eks.
	// +kubebuilder:validation:MinLength=1
	Plugin string `json:"plugin"`
	// +optional
	Topology string `json:"topology,omitempty"`
	// CredentialRef is the ID of the stored cloud credential; the host
	// resolves it just before each plugin call. Empty for a plugin that
	// takes no credential.
	// +optional
	CredentialRef string `json:"credentialRef,omitempty"`
	// ControlPlaneCount is the number of control-plane machines of a
	// self-managed control plane.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=7
	// +optional
	ControlPlaneCount *int32 `json:"controlPlaneCount,omitempty"`
	// NodeCount is the number of worker nodes.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +optional
	NodeCount *int32 `json:"nodeCount,omitempty"`
	// Inputs are every input passed to the plugin, as validated against its
	// schema (defaults filled in), except the secret ones.
	// +optional
	Inputs map[string]string `json:"inputs,omitempty"`
	// SecretInputsRef names the Secret (in this namespace) holding the
	// inputs the plugin declares secret, one key per input; the controller
	// adds them to Inputs only when it calls the plugin.
	// +optional
	SecretInputsRef string `json:"secretInputsRef,omitempty"`
}

// HostClusterSpec is what KubeOpera was asked to do for one cluster.
// +kubebuilder:validation:XValidation:rule="self.mode != 'connect_existing' || has(self.connectKubeconfigSecretRef)",message="mode connect_existing needs connectKubeconfigSecretRef"
// +kubebuilder:validation:XValidation:rule="self.mode == 'connect_existing' || has(self.provisioning)",message="provisioning modes need spec.provisioning"
// +kubebuilder:validation:XValidation:rule="self.mode != 'provision_eks' || !has(self.provisioning) || !has(self.provisioning.controlPlaneCount)",message="EKS runs the control plane: remove provisioning.controlPlaneCount"
type HostClusterSpec struct {
	// DisplayName is the cluster's own name (clusters.name), shown by
	// kubectl next to the UUID the object is named by.
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	Mode        Mode   `json:"mode"`
	// Provider is the cloud: aws, gcp, azure or other.
	// +kubebuilder:validation:MinLength=1
	Provider string `json:"provider"`
	// +optional
	Region string `json:"region,omitempty"`
	// ConnectKubeconfigSecretRef holds the kubeconfig pasted at connect.
	// +optional
	ConnectKubeconfigSecretRef *SecretKeyRef `json:"connectKubeconfigSecretRef,omitempty"`
	// +optional
	Provisioning *Provisioning `json:"provisioning,omitempty"`
	// GitOpsRepoURL is the repository the cluster's GitOps tree is pushed to.
	// +optional
	GitOpsRepoURL string `json:"gitOpsRepoURL,omitempty"`
	// +optional
	GitOpsPath string `json:"gitOpsPath,omitempty"`
	// GitCredentialsSecretRef names the Secret with the git credentials.
	// +optional
	GitCredentialsSecretRef string `json:"gitCredentialsSecretRef,omitempty"`
	// Domain publishes KubeOpera's services on the cluster.
	// +optional
	Domain string `json:"domain,omitempty"`
	// IngressNginx publishes KubeOpera through ingress-nginx and Ingresses
	// instead of a Gateway API Gateway (Envoy Gateway). ingress-nginx was
	// retired on 2026-03-24: set it only for a cluster that needs it.
	// +optional
	IngressNginx bool `json:"ingressNginx,omitempty"`
	// RegistryPullSecretRef replaces the platform's default image pull secret.
	// +optional
	RegistryPullSecretRef string `json:"registryPullSecretRef,omitempty"`
	// AdminEmail and AdminUsername, when both set, create the first admin.
	// +optional
	AdminEmail string `json:"adminEmail,omitempty"`
	// +optional
	AdminUsername string `json:"adminUsername,omitempty"`
	// NodeCount is the desired number of worker nodes of a provisioned
	// cluster (day 2); status.nodeCount is the observed one. A difference
	// becomes one Update of the provider plugin ("scale"). Empty keeps what
	// the cluster has; provisioning.inputs stay the record of the request
	// that created it.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	NodeCount *int32 `json:"nodeCount,omitempty"`
	// KubernetesVersion is the desired Kubernetes version of a provisioned
	// cluster (day 2, "upgrade"); status.kubernetesVersion is the observed
	// one. Empty keeps what the cluster has.
	// +kubebuilder:validation:Pattern=`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// Phase is where a HostCluster is; it is derived from what the controller
// observed, in this order.
// +kubebuilder:validation:Enum=Pending;ValidatingAccess;Provisioning;BootstrappingFlux;GeneratingGitOpsTree;InstallingKubeOpera;Ready;Failed;Deleting;TearingDown;Updating
type Phase string

// The phases.
const (
	PhasePending              Phase = "Pending"
	PhaseValidatingAccess     Phase = "ValidatingAccess"
	PhaseProvisioning         Phase = "Provisioning"
	PhaseBootstrappingFlux    Phase = "BootstrappingFlux"
	PhaseGeneratingGitOpsTree Phase = "GeneratingGitOpsTree"
	PhaseInstallingKubeOpera  Phase = "InstallingKubeOpera"
	PhaseReady                Phase = "Ready"
	PhaseFailed               Phase = "Failed"
	// PhaseDeleting: the HostCluster is being deleted (a disconnect, or the
	// end of a teardown); the finalizer removes KubeOpera's Flux objects
	// from the target, leaving what they applied running, and the message
	// shows its progress.
	PhaseDeleting Phase = "Deleting"
	// PhaseTearingDown: a teardown was asked for (TeardownAnnotation); the
	// provider plugin's Destroy runs and the message shows its progress.
	// Once the cloud side is gone the HostCluster is deleted; if Destroy
	// fails the phase is Failed and a new teardown request retries it.
	PhaseTearingDown Phase = "TearingDown"
	// PhaseUpdating: the provider plugin's Update runs to move the cluster
	// to the spec's nodeCount or kubernetesVersion (day 2); the message
	// shows its progress. It ends Ready, or Ready with the Updated
	// condition False (reason UpdateFailed) saying why the cluster was
	// left as it was.
	PhaseUpdating Phase = "Updating"
)

// Phases is every phase, in the order a cluster goes through them: the one
// list the REST API's document, its clients and the dashboard take their
// enums from (the Enum marker above lists the same, checked by a test).
var Phases = []Phase{PhasePending, PhaseValidatingAccess, PhaseProvisioning, PhaseBootstrappingFlux,
	PhaseGeneratingGitOpsTree, PhaseInstallingKubeOpera, PhaseReady, PhaseFailed, PhaseDeleting, PhaseTearingDown, PhaseUpdating}

// HostClusterStatus is what the controller observed.
type HostClusterStatus struct {
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Message says what is happening or what went wrong, for a person.
	// +optional
	Message string `json:"message,omitempty"`
	// KubeconfigSecret names the Secret holding the cluster's kubeconfig.
	// +optional
	KubeconfigSecret string `json:"kubeconfigSecret,omitempty"`
	// +optional
	FluxHealthy bool `json:"fluxHealthy,omitempty"`
	// GitOpsRevision is the commit holding this cluster's GitOps tree.
	// +optional
	GitOpsRevision string `json:"gitOpsRevision,omitempty"`
	// AdminPasswordSecretRef names the Secret with the first admin's password.
	// +optional
	AdminPasswordSecretRef string `json:"adminPasswordSecretRef,omitempty"`
	// TerraformJob names the Job (in the Terraform runner's namespace,
	// kubeopera-provisioning) that ran terraform apply for a provisioned
	// cluster, when its plugin ran terraform as a Job; empty when terraform
	// ran in the plugin's own process, so there are no Job logs to show.
	// +optional
	TerraformJob string `json:"terraformJob,omitempty"`
	// KubernetesVersion, NodeCount and ReadyNodeCount are the live
	// inventory read from the cluster's API server at phase changes and
	// every few minutes while Ready; InventoryTime is when.
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// +optional
	NodeCount int32 `json:"nodeCount,omitempty"`
	// +optional
	ReadyNodeCount int32 `json:"readyNodeCount,omitempty"`
	// WorkerNodeCount counts the nodes without the control-plane role,
	// what spec.nodeCount asks for; unset until the inventory was read.
	// +optional
	WorkerNodeCount *int32 `json:"workerNodeCount,omitempty"`
	// +optional
	InventoryTime *metav1.Time `json:"inventoryTime,omitempty"`
	// ClusterUID is the UID of the cluster's kube-system namespace: which
	// Kubernetes cluster this is, whatever kubeconfig reaches it. The
	// server refuses to connect the same cluster a second time by it.
	// +optional
	ClusterUID string `json:"clusterUID,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Retried is the value of the last RetryAnnotation the controller took
	// up; a different value is a retry still to start.
	// +optional
	Retried string `json:"retried,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// HostCluster is one cluster under KubeOpera's management.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced,shortName=hc
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Provider",type=string,JSONPath=`.spec.provider`
// +kubebuilder:printcolumn:name="Region",type=string,JSONPath=`.spec.region`
// +kubebuilder:printcolumn:name="Version",type=string,JSONPath=`.status.kubernetesVersion`
// +kubebuilder:printcolumn:name="Nodes",type=integer,JSONPath=`.status.nodeCount`,priority=1
// +kubebuilder:printcolumn:name="Message",type=string,JSONPath=`.status.message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type HostCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   HostClusterSpec   `json:"spec"`
	Status HostClusterStatus `json:"status,omitempty"`
}

// HostClusterList is a list of HostClusters.
// +kubebuilder:object:root=true
type HostClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HostCluster `json:"items"`
}
