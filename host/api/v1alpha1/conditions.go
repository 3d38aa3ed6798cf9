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
	// ConditionFluxInstalled: the Flux Helm release was installed or
	// upgraded for this generation (its controllers may still be starting).
	ConditionFluxInstalled = "FluxInstalled"
	// ConditionGitOpsPushed: the cluster's GitOps tree is in its repository
	// at status.gitOpsRevision.
	ConditionGitOpsPushed = "GitOpsPushed"
	// ConditionKubeOperaInstalled: Flux applied the tree's apps at the
	// pushed revision.
	ConditionKubeOperaInstalled = "KubeOperaInstalled"
	// ConditionAdminCreated: the first admin account exists on the
	// installed KubeOpera (False with reason Skipped when not asked for).
	ConditionAdminCreated = "AdminCreated"
	// ConditionTornDown: the provider plugin's Destroy of a teardown
	// succeeded (True) or failed (False, reason DestroyFailed); the target
	// no longer exists, so the finalizer does not try to clean it.
	ConditionTornDown = "TornDown"
	// ConditionReady: every step is done.
	ConditionReady = "Ready"
)

// Condition reasons shared by the steps.
const (
	// ReasonWaiting: the step waits for something that usually comes by
	// itself; the message says what and until when it is retried.
	ReasonWaiting = "Waiting"
	// ReasonRetrying: the step hit a transient error; the message says
	// which and when it is retried.
	ReasonRetrying = "Retrying"
)
