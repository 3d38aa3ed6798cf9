package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitrepo"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// params is the GitOps tree of hc.
func (p *Pipeline) params(hc *v1.HostCluster) gitops.Params {
	return gitops.Params{ClusterID: hc.Name, ClusterName: hc.Name, Domain: hc.Spec.Domain, Path: hc.Spec.GitOpsPath,
		ImageRegistry: p.o.ImageRegistry, Version: p.o.Version, PullSecret: p.pullSecret(hc),
		AdminEmail: hc.Spec.AdminEmail, Provider: treeProvider(hc.Spec.Provider), FluxNamespace: fluxsync.Namespace,
		DefaultStorageClass: madeWithoutDefaultStorageClass(hc.Spec.Mode), IngressNginx: hc.Spec.IngressNginx,
		GatewayAPIRepoURL: p.o.GatewayAPIRepoURL}
}

// madeWithoutDefaultStorageClass reports the clusters KubeOpera provisioned
// with no default StorageClass of their own, on which the tree's gp3 class
// becomes the one default: aws-vanilla's and EKS's. The plugins make none,
// so the tree's is the only default on either topology.
func madeWithoutDefaultStorageClass(m v1.Mode) bool {
	return m == v1.ModeProvisionVanilla || m == v1.ModeProvisionEKS
}

// treeProvider is the cloud the GitOps tree picks its storage for: a
// plugin's provider name when the tree knows that cloud, else "other" (any
// plugin provisions, so a provider such as "local" or "hetzner" is no error).
func treeProvider(provider string) string {
	switch provider {
	case gitops.ProviderAWS, gitops.ProviderGCP, gitops.ProviderAzure, "":
		return provider
	}
	return gitops.ProviderOther
}

// pushTree generates the cluster's GitOps tree and pushes it in one commit
// naming the cluster, once per spec generation; an unchanged tree makes no
// commit. The Secrets the tree refers to are created on the target first,
// so nothing Flux applies waits on a missing Secret.
func (p *Pipeline) pushTree(ctx context.Context, hc *v1.HostCluster, t *target) error {
	if doneFor(hc, v1.ConditionGitOpsPushed) && hc.Status.GitOpsRevision != "" {
		return nil
	}
	if hc.Spec.GitOpsRepoURL == "" {
		return step.Stall(v1.ReasonGitOpsInvalid, "spec.gitOpsRepoURL is not set: KubeOpera pushes this cluster's GitOps tree to a git repository; "+
			"set gitOpsRepoURL (and gitCredentialsSecretRef for a private one)")
	}
	params := p.params(hc)
	if err := params.Validate(); err != nil {
		return step.Stall(v1.ReasonGitOpsInvalid, "GitOps tree: %v", err)
	}
	tree, err := gitops.Generate(params)
	if err != nil {
		return step.Stall(v1.ReasonGitOpsInvalid, "GitOps tree: %v", err)
	}
	auth, err := p.gitAuth(ctx, hc)
	if err != nil {
		return err
	}
	if err := createTreeSecrets(ctx, t.client, hc, params); err != nil {
		return err
	}
	setup, err := p.setupSecret(ctx, hc)
	if err == nil {
		err = putSetupSecret(ctx, t.client, hc, setup)
	}
	if err != nil {
		return err
	}
	res, err := gitrepo.Publish(ctx, auth, gitrepo.Push{URL: hc.Spec.GitOpsRepoURL, Path: hc.Spec.GitOpsPath, Files: tree,
		Message: fmt.Sprintf("KubeOpera: GitOps tree of cluster %s", hc.Name)})
	var gitErr *gitrepo.Error
	switch {
	case errors.As(err, &gitErr) && (errors.Is(err, gitrepo.ErrUnreachable) || errors.Is(err, gitrepo.ErrConflict)):
		// A branch that kept moving is busy (e.g. a fleet onboarding at
		// once, every cluster pushing to it): a later try gets through.
		return step.Retry(0, "pushing the GitOps tree: %v", err)
	case errors.As(err, &gitErr):
		return step.Stall(v1.ReasonGitRejected, "%v", err)
	case err != nil:
		return fmt.Errorf("push GitOps tree: %w", err)
	}
	hc.Status.GitOpsRevision = res.Commit
	msg := fmt.Sprintf("tree unchanged at %s in %s", short(res.Commit), hc.Spec.GitOpsRepoURL)
	if res.Changed {
		msg = fmt.Sprintf("pushed %s to %s", short(res.Commit), hc.Spec.GitOpsRepoURL)
	}
	hc.SetCondition(v1.ConditionGitOpsPushed, metav1.ConditionTrue, v1.ReasonPushed, msg)
	return nil
}

// installKubeOpera points Flux at the pushed revision and waits until the
// apps Kustomization is Ready at it. Flux's own failure message stalls the
// cluster at once; ApplyTimeout does otherwise.
func (p *Pipeline) installKubeOpera(ctx context.Context, hc *v1.HostCluster, t *target) error {
	if doneFor(hc, v1.ConditionKubeOperaInstalled) {
		return nil
	}
	c := metaCondition(hc, v1.ConditionKubeOperaInstalled)
	if c == nil || c.ObservedGeneration != hc.Generation || c.Reason != v1.ReasonApplying {
		sync := fluxsync.Sync{ClusterID: hc.Name, URL: hc.Spec.GitOpsRepoURL, Path: hc.Spec.GitOpsPath}
		if hc.Spec.GitCredentialsSecretRef != "" {
			sync.SecretName = gitSecretName(hc.Name)
		}
		if err := fluxsync.Apply(ctx, t.client, sync); err != nil {
			return fmt.Errorf("point Flux at the tree: %w", err)
		}
		// Fetch now rather than at the next interval.
		if err := fluxsync.RequestFetch(ctx, t.client, hc.Name); err != nil {
			return err
		}
		hc.SetCondition(v1.ConditionKubeOperaInstalled, metav1.ConditionFalse, v1.ReasonApplying,
			"Flux is applying "+short(hc.Status.GitOpsRevision))
	}
	report, err := fluxsync.Check(ctx, t.client, hc.Name, hc.Status.GitOpsRevision, p.holds(hc))
	switch {
	case err != nil:
		return err
	case report.Failed:
		return step.Stall(v1.ReasonApplyFailed, "Flux could not apply the GitOps tree: %s", report.Message)
	case report.Ready:
		hc.SetCondition(v1.ConditionKubeOperaInstalled, metav1.ConditionTrue, v1.ReasonApplied, report.Message)
		return nil
	}
	if report.InfrastructureReady {
		// apps waits on infrastructure, and nothing tells it when that is
		// Ready: ask now instead of after Flux's dependency requeue.
		if err := fluxsync.RequestApply(ctx, t.client, hc.Name); err != nil {
			return err
		}
	}
	if waited := since(hc, v1.ConditionKubeOperaInstalled); waited > p.o.ApplyTimeout {
		return step.Stall(v1.ReasonApplyFailed, "Flux has not applied %s after %s: %s", short(hc.Status.GitOpsRevision),
			waited.Round(time.Second), report.Message)
	}
	return step.Wait(0, "%s", report.Message)
}
