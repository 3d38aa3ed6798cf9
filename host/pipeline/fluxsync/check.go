package fluxsync

import (
	"context"
	"fmt"
	"strings"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Report is what Flux says about one commit of a cluster's tree.
type Report struct {
	// Ready: the apps Kustomization is Ready and last applied the commit
	// (so infrastructure, which it depends on, was Ready at it too).
	Ready bool
	// Failed: Flux reports a failure: the GitRepository cannot fetch, or a
	// Kustomization failed at the commit. Message is then Flux's own message
	// prefixed with the object. Flux keeps retrying, so a later Check may
	// see the failure cleared (e.g. a transient fetch error).
	Failed bool
	// InfrastructureReady: infrastructure applied the commit while apps has
	// not yet; RequestApply then saves apps Flux's dependency requeue.
	InfrastructureReady bool
	// Message says what Flux did, or what it is waiting for.
	Message string
}

// waitingReasons are the Ready=False reasons that mean "not yet" rather than
// "failed", for both kinds:
//   - Progressing, ProgressingWithRetry: a reconciliation is under way.
//   - DependencyNotReady: apps waits for infrastructure, whose own state
//     is reported (and judged) on its own.
//   - HealthCheckCanceled: a newer revision arrived mid health check.
//   - ArtifactFailed: on a Kustomization, the source has no artifact yet
//     ("Source artifact not found, retrying"), which is the normal state
//     until the first fetch ends; a fetch failure shows on the
//     GitRepository itself. (It also covers a failed artifact download,
//     which then stays in Message until the pipeline's own timeout.)
//
// Every other reason is a failure: on a Kustomization e.g. BuildFailed
// (kustomize build: bad kustomization.yaml, missing file),
// ReconciliationFailed (the API server rejected an object: invalid
// manifest, missing CRD), HealthCheckFailed, PruneFailed; on a
// GitRepository e.g. GitOperationFailed (authentication, unknown branch,
// unreachable host) or AuthenticationFailed (Secret missing or malformed).
var waitingReasons = map[string]bool{
	fluxmeta.ProgressingReason:          true,
	fluxmeta.ProgressingWithRetryReason: true,
	fluxmeta.DependencyNotReadyReason:   true,
	fluxmeta.HealthCheckCanceledReason:  true,
	fluxmeta.ArtifactFailedReason:       true,
}

// Check reads the cluster's Flux objects and reports on commit (a full Git
// SHA): Ready once apps applied a revision that holds it, that is commit
// itself or, as holds decides, a later commit that contains it (nil holds:
// only commit itself). A Kustomization failure counts only when it
// happened at such a revision (its lastAttemptedRevision): a failure at an
// older revision is waited out, since Flux retries with the newer one once
// fetched. A stalled Kustomization, or a GitRepository that cannot fetch,
// fails whatever the commit.
func Check(ctx context.Context, c client.Client, clusterID, commit string, holds Holds) (Report, error) {
	if commit == "" {
		return Report{}, fmt.Errorf("flux check of cluster %s: no commit given", clusterID)
	}
	repo := &sourcev1.GitRepository{}
	infra, apps := &kustomizev1.Kustomization{}, &kustomizev1.Kustomization{}
	for _, o := range []struct {
		name string
		obj  client.Object
	}{{GitRepositoryName(clusterID), repo}, {InfrastructureName(clusterID), infra}, {AppsName(clusterID), apps}} {
		if err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: o.name}, o.obj); err != nil {
			if apierrors.IsNotFound(err) {
				return Report{}, fmt.Errorf("flux check of cluster %s: %s/%s not found; apply the Flux sync first: %w", clusterID, Namespace, o.name, err)
			}
			return Report{}, fmt.Errorf("flux check of cluster %s: read %s/%s: %w", clusterID, Namespace, o.name, err)
		}
	}
	if msg, failed := sourceFailure(repo); failed {
		return Report{Failed: true, Message: fmt.Sprintf("GitRepository %s/%s: %s", Namespace, repo.Name, msg)}, nil
	}
	j := newJudge(ctx, commit, holds)
	for _, k := range []*kustomizev1.Kustomization{infra, apps} {
		if msg, failed := kustomizationFailure(k, j); failed {
			return Report{Failed: true, Message: fmt.Sprintf("Kustomization %s/%s: %s", Namespace, k.Name, msg)}, nil
		}
	}
	if kustomizationApplied(apps, j) {
		return Report{Ready: true, Message: "Flux applied " + j.explain(apps.Status.LastAppliedRevision)}, nil
	}
	return Report{InfrastructureReady: kustomizationApplied(infra, j), Message: fmt.Sprintf("waiting for Flux to apply %s: GitRepository %s, infrastructure %s, apps %s",
		shortSHA(commit), sourceState(repo, j), kustomizationState(infra, j), kustomizationState(apps, j))}, nil
}

func sourceFailure(r *sourcev1.GitRepository) (string, bool) {
	ready := apimeta.FindStatusCondition(r.Status.Conditions, fluxmeta.ReadyCondition)
	if ready != nil && ready.Status == metav1.ConditionFalse && !waitingReasons[ready.Reason] {
		return ready.Message, true
	}
	return "", false
}

func kustomizationFailure(k *kustomizev1.Kustomization, j *judge) (string, bool) {
	ready := apimeta.FindStatusCondition(k.Status.Conditions, fluxmeta.ReadyCondition)
	if stalled := apimeta.FindStatusCondition(k.Status.Conditions, fluxmeta.StalledCondition); stalled != nil && stalled.Status == metav1.ConditionTrue {
		if ready != nil && ready.Message != "" {
			return ready.Message, true
		}
		return stalled.Message, true
	}
	if ready == nil || ready.Status != metav1.ConditionFalse || waitingReasons[ready.Reason] {
		return "", false
	}
	return ready.Message, j.contains(k.Status.LastAttemptedRevision)
}

// kustomizationApplied: Ready for its current spec, last applied at a
// revision that holds the commit.
func kustomizationApplied(k *kustomizev1.Kustomization, j *judge) bool {
	return apimeta.IsStatusConditionTrue(k.Status.Conditions, fluxmeta.ReadyCondition) &&
		k.Status.ObservedGeneration == k.Generation &&
		j.contains(k.Status.LastAppliedRevision)
}

func sourceState(r *sourcev1.GitRepository, j *judge) string {
	if a := r.GetArtifact(); a != nil {
		if j.contains(a.Revision) {
			return "fetched " + j.explain(a.Revision)
		}
		if v := j.of(a.Revision); v.why != "" {
			return "at " + a.Revision + " (" + v.why + ")"
		}
		return "at " + a.Revision + ", not yet fetched " + shortSHA(j.commit)
	}
	if ready := apimeta.FindStatusCondition(r.Status.Conditions, fluxmeta.ReadyCondition); ready != nil {
		return "fetching (" + brief(ready.Message) + ")"
	}
	return "not reconciled yet"
}

func kustomizationState(k *kustomizev1.Kustomization, j *judge) string {
	ready := apimeta.FindStatusCondition(k.Status.Conditions, fluxmeta.ReadyCondition)
	switch {
	case ready == nil:
		return "not reconciled yet"
	case ready.Status == metav1.ConditionTrue:
		return "Ready at " + j.explain(k.Status.LastAppliedRevision)
	case ready.Reason == fluxmeta.DependencyNotReadyReason:
		return "waiting for its dependency"
	case ready.Status == metav1.ConditionFalse && !waitingReasons[ready.Reason]:
		return "failed at " + k.Status.LastAttemptedRevision + ", to retry at the new commit"
	default:
		return "applying (" + ready.Reason + ": " + brief(ready.Message) + ")"
	}
}

func shortSHA(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// brief keeps a progress message to one short line.
func brief(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if len(msg) > 160 {
		msg = msg[:160] + "..."
	}
	return msg
}
