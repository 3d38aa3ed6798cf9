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
	// ConditionReady: every step is done.
	ConditionReady = "Ready"
)
