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
	// ConditionUpdated: the provider plugin's Update moved the cluster to
	// the spec's nodeCount and kubernetesVersion for this generation
	// (True), is running (False, InProgress) or failed (False,
	// UpdateFailed: the cluster is as it was, the message says why).
	ConditionUpdated = "Updated"
	// ConditionReady: every step is done. False while a step waits, retries
	// or is stalled, with that step's reason and message.
	ConditionReady = "Ready"
	// ConditionStalled: a step cannot go on until the user acts (True, the
	// reason naming what failed, the message what to fix); the phase is
	// then Failed. Absent while the cluster makes progress or waits. A new
	// spec generation, or a new teardown request, clears it.
	ConditionStalled = "Stalled"
)

// Condition reasons, for a condition's Reason field.
const (
	// ReasonWaiting: the step waits for something that usually comes by
	// itself; the message says what and when it is checked again.
	ReasonWaiting = "Waiting"
	// ReasonRetrying: the step hit a transient error; the message says
	// which and when it is retried.
	ReasonRetrying = "Retrying"
	// ReasonAdminRefused: the installed KubeOpera refused the first-admin call (Stalled).
	ReasonAdminRefused = "AdminRefused"
	// ReasonAdminUnanswered: the installed KubeOpera did not accept the first-admin call within the admin timeout (Stalled).
	ReasonAdminUnanswered = "AdminUnanswered"
	// ReasonApplyFailed: Flux reported that it cannot apply the GitOps tree, or did not within the apply timeout (Stalled).
	ReasonApplyFailed = "ApplyFailed"
	// ReasonFluxInstallFailed: the Flux Helm chart could not be installed (Stalled).
	ReasonFluxInstallFailed = "FluxInstallFailed"
	// ReasonFluxUnavailable: Flux's controllers did not become available within the Flux timeout (Stalled).
	ReasonFluxUnavailable = "FluxUnavailable"
	// ReasonGitOpsInvalid: the spec's GitOps settings cannot make a tree (no repository URL, a bad path or domain) (Stalled).
	ReasonGitOpsInvalid = "GitOpsInvalid"
	// ReasonGitRejected: the git server refused the credentials or the push (Stalled).
	ReasonGitRejected = "GitRejected"
	// ReasonSecretMissing: a Secret the HostCluster names does not exist or cannot be used (Stalled).
	ReasonSecretMissing = "SecretMissing"
	// ReasonAccessRefused: the cluster refused the kubeconfig's credentials or certificate: fix the kubeconfig.
	ReasonAccessRefused = "AccessRefused"
	// ReasonAlreadyExists: the installed KubeOpera already had an administrator.
	ReasonAlreadyExists = "AlreadyExists"
	// ReasonApplied: Flux applied the pushed revision.
	ReasonApplied = "Applied"
	// ReasonApplying: Flux has not yet applied the pushed revision.
	ReasonApplying = "Applying"
	// ReasonControllersAvailable: every Flux controller is available.
	ReasonControllersAvailable = "ControllersAvailable"
	// ReasonControllersNotAvailable: some Flux controllers are not available yet.
	ReasonControllersNotAvailable = "ControllersNotAvailable"
	// ReasonCreated: the first admin was created.
	ReasonCreated = "Created"
	// ReasonCredentialMissing: the cloud credential the cluster references does not exist.
	ReasonCredentialMissing = "CredentialMissing"
	// ReasonDestroyFailed: the plugin's Destroy failed; a new teardown request retries it.
	ReasonDestroyFailed = "DestroyFailed"
	// ReasonDestroyed: the plugin's Destroy succeeded.
	ReasonDestroyed = "Destroyed"
	// ReasonInProgress: a plugin operation (provision, update or destroy) is running.
	ReasonInProgress = "InProgress"
	// ReasonInstalled: the Flux Helm release is installed for this generation.
	ReasonInstalled = "Installed"
	// ReasonInvalidKubeconfig: the kubeconfig cannot be parsed or its certificate data is bad.
	ReasonInvalidKubeconfig = "InvalidKubeconfig"
	// ReasonNoSuchProvider: no provider plugin of that name is loaded.
	ReasonNoSuchProvider = "NoSuchProvider"
	// ReasonNotProvisioned: a teardown was asked for a cluster KubeOpera did not provision.
	ReasonNotProvisioned = "NotProvisioned"
	// ReasonOperationLost: the plugin no longer knows the operation it started.
	ReasonOperationLost = "OperationLost"
	// ReasonPipelineDone: every pipeline step is done.
	ReasonPipelineDone = "PipelineDone"
	// ReasonPipelineFailed: a pipeline step failed; the message says what to fix.
	ReasonPipelineFailed = "PipelineFailed"
	// ReasonPipelineUnavailable: this build has no shared pipeline.
	ReasonPipelineUnavailable = "PipelineUnavailable"
	// ReasonProvisioned: the plugin's operation succeeded and the kubeconfig is stored.
	ReasonProvisioned = "Provisioned"
	// ReasonProvisioningFailed: the plugin's provisioning failed; the message carries its error class.
	ReasonProvisioningFailed = "ProvisioningFailed"
	// ReasonProvisioningTerminal: the plugin's provisioning failed with
	// class TERMINAL: starting it again cannot succeed, so a retry is
	// refused; change the request (create the cluster again) or tear it down.
	ReasonProvisioningTerminal = "ProvisioningTerminal"
	// ReasonPushed: the GitOps tree is in its repository.
	ReasonPushed = "Pushed"
	// ReasonReachable: the API server answered.
	ReasonReachable = "Reachable"
	// ReasonSkipped: the step was not asked for (no admin email and username).
	ReasonSkipped = "Skipped"
	// ReasonSimulated: the first admin was not created because the
	// installed KubeOpera server runs on a kwok node (a simulated pod whose
	// address exists nowhere, as in `make dev`), so no call can reach it;
	// the cluster still ends Ready. On real nodes the admin is created.
	ReasonSimulated = "Simulated"
	// ReasonUpdated: the plugin's Update succeeded, or there was nothing to change.
	ReasonUpdated = "Updated"
	// ReasonUpdateFailed: the plugin refused or failed the Update; the cluster is as it was.
	ReasonUpdateFailed = "UpdateFailed"
	// ReasonUnreachable: the API server could not be reached (retried for the access window).
	ReasonUnreachable = "Unreachable"
)
