package pipeline

import (
	"context"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitrepo"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// holds judges, on the repository hc's tree was pushed to, whether a commit
// Flux applied holds the cluster's own (status.gitOpsRevision): clusters
// onboarded together push to one branch, and Flux applies the newest
// commit, which contains the others'. When a force push dropped the
// cluster's commit, the files under its path decide, compared with the
// tree generated again from the spec it was pushed for.
func (p *Pipeline) holds(hc *v1.HostCluster) fluxsync.Holds {
	return func(ctx context.Context, sha string) (bool, string, error) {
		key := hc.Namespace + "/" + hc.Name + "/" + hc.Status.GitOpsRevision + "/" + sha
		if v, ok := p.verdicts.Load(key); ok {
			return v.(gitrepo.Verdict).Holds, v.(gitrepo.Verdict).Why, nil
		}
		auth, err := p.gitAuth(ctx, hc)
		if err != nil {
			return false, "", err
		}
		pushed := gitrepo.Pushed{URL: hc.Spec.GitOpsRepoURL, Path: hc.Spec.GitOpsPath, Commit: hc.Status.GitOpsRevision}
		if tree, err := gitops.Generate(p.params(hc)); err == nil {
			pushed.Files = tree
		}
		v, err := gitrepo.Holds(ctx, auth, pushed, sha)
		if err == nil && lasting(v) {
			p.verdicts.Store(key, v)
		}
		return v.Holds, v.Why, err
	}
}

// lasting reports a verdict that no later push can change: history is
// fixed once both commits are on the branch, and a revision's files are
// fixed. (That the pushed commit is gone, or the revision is, may change.)
func lasting(v gitrepo.Verdict) bool {
	return v.How == gitrepo.Same || v.How == gitrepo.Ancestry || (v.How == gitrepo.Content && v.Holds)
}

// gitAuth reads the credentials for hc's GitOps repository (anonymous when
// it names no Secret); a Secret that is missing or malformed stalls.
func (p *Pipeline) gitAuth(ctx context.Context, hc *v1.HostCluster) (gitrepo.Auth, error) {
	ref := hc.Spec.GitCredentialsSecretRef
	if ref == "" {
		return gitrepo.Auth{}, nil
	}
	s, err := p.hostSecret(ctx, hc, ref)
	if err != nil {
		return gitrepo.Auth{}, err
	}
	auth, err := gitrepo.AuthFromSecret(s.Data)
	if err != nil {
		return gitrepo.Auth{}, step.Stall(v1.ReasonSecretMissing, "git credentials Secret %s: %v", ref, err)
	}
	return auth, nil
}
