package v1alpha1

// Condition types of a HostCluster, one per step the controller takes.
const (
	// ConditionAccessValidated: the cluster's API server answered with its
	// version through the stored kubeconfig.
	ConditionAccessValidated = "AccessValidated"
	// ConditionProvisioned: the provider plugin's operation succeeded and
	// the kubeconfig is stored.
	ConditionProvisioned = "Provisioned"
	// ConditionFluxReady: Flux is installed and its controllers available.
	ConditionFluxReady = "FluxReady"
	// ConditionReady: every step is done.
	ConditionReady = "Ready"
)
