package controller

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// FluxNamespace is where the pipeline creates the Flux objects of a cluster,
// each labelled with ClusterIDLabel.
const FluxNamespace = "flux-system"

// fluxResources are the only kinds the finalizer deletes on a target.
var fluxResources = []schema.GroupVersionResource{gitRepositories, kustomizations}

var (
	gitRepositories = schema.GroupVersionResource{Group: "source.toolkit.fluxcd.io", Version: "v1", Resource: "gitrepositories"}
	kustomizations  = schema.GroupVersionResource{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Resource: "kustomizations"}
)

var fluxKinds = map[string]string{"gitrepositories": "GitRepository", "kustomizations": "Kustomization"}

// deletionPolicyOrphan is kustomize-controller's policy that keeps applied
// objects when their Kustomization is deleted.
const deletionPolicyOrphan = "Orphan"

// cleanupDeadline is the default bound on target cleanup.
const cleanupDeadline = 30 * time.Second

// finalize disconnects. In phase Deleting it deletes the Flux GitRepository
// and Kustomizations KubeOpera created on the target (and nothing else
// there; the Kustomizations orphan what they applied) and waits until Flux
// released them, reporting each step in status.message. Past
// CleanupTimeout from the deletion it stops trying and says in an event
// what was left on the target. Then it deletes the Secrets it keeps for
// the cluster on the host (kubeconfigs, setup, secret inputs) and lets the
// HostCluster go. A torn-down cluster has no target left to clean. Its
// progress is written by the reconcile's deferred status write.
func (r *Reconciler) finalize(ctx context.Context, p *pass) error {
	hc := p.hc
	if !controllerutil.ContainsFinalizer(hc, Finalizer) {
		return nil
	}
	names := []string{v1.KubeconfigSecretName(hc.Name)}
	if ref := hc.Spec.ConnectKubeconfigSecretRef; ref != nil && ref.Name != names[0] {
		names = append(names, ref.Name)
	}
	var outcome string
	if c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionTornDown); c != nil && c.Status == metav1.ConditionTrue {
		outcome = "torn down: " + c.Message + ". KubeOpera no longer lists the cluster"
	} else {
		outcome = "disconnected: no stored kubeconfig, so nothing on the target was touched"
		if data := r.anyKubeconfig(ctx, hc, names); data != nil {
			left, err := r.cleanTarget(ctx, hc, data)
			if done, after := r.deleting(hc, left, err); !done {
				p.wake.In(after)
				return nil
			}
			outcome = cleanupOutcome(hc.Name, left, err)
		}
	}
	// The admin password Secret stays: that KubeOpera keeps running.
	names = append(names, v1.SetupSecretName(hc.Name), v1.SecretInputsName(hc.Name))
	for _, n := range names {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: hc.Namespace}}
		if err := r.Delete(ctx, secret); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Secret %s: %w", n, err)
		}
	}
	r.forget(hc)
	r.Recorder.Eventf(hc, "Normal", "Disconnected", "%s", outcome)
	controllerutil.RemoveFinalizer(hc, Finalizer)
	return client.IgnoreNotFound(r.Update(ctx, hc))
}

// deleting records the cleanup's progress (the phase is Deleting); it
// reports done when nothing is left on the target or the time for it is
// over, else when to look again.
func (r *Reconciler) deleting(hc *v1.HostCluster, left []string, err error) (bool, time.Duration) {
	remaining := time.Until(hc.DeletionTimestamp.Add(r.CleanupTimeout))
	if (len(left) == 0 && err == nil) || remaining <= 0 {
		if err != nil || len(left) > 0 {
			r.Recorder.Eventf(hc, "Warning", "TargetCleanupIncomplete", "%s", cleanupOutcome(hc.Name, left, err))
		}
		return true, 0
	}
	var progress error
	switch {
	case err != nil:
		progress = step.Retry(min(time.Second, remaining), "disconnecting: cannot reach the target to remove KubeOpera's Flux objects "+
			"(given up in %s): %v", remaining.Round(time.Second), err)
	default:
		progress = step.Wait(min(time.Second, remaining), "disconnecting: waiting for Flux to release %s (what they applied keeps running); "+
			"given up in %s", strings.Join(left, ", "), remaining.Round(time.Second))
	}
	return false, step.Report(hc, progress, time.Second, time.Now())
}

// cleanupOutcome says, for the event of a finished disconnect, what was
// removed and what was left on the target.
func cleanupOutcome(id string, left []string, err error) string {
	const keeps = "Flux and everything it applied (KubeOpera, the tree's infrastructure) keep running on the target"
	switch {
	case err != nil:
		return fmt.Sprintf("disconnected without cleaning the target (%v): left on it GitRepository %s/kubeopera-%s and Kustomizations "+
			"%s/kubeopera-%s-infrastructure, -apps and -tls, if they exist; delete them with kubectl when it is back (they orphan what they applied). %s",
			err, FluxNamespace, id, FluxNamespace, id, keeps)
	case len(left) > 0:
		return fmt.Sprintf("disconnected, but Flux did not release %s in time: they are left on the target with a deletion pending "+
			"(is kustomize-controller running there?). %s", strings.Join(left, ", "), keeps)
	}
	return "disconnected: removed KubeOpera's GitRepository and Kustomizations from the target; " + keeps
}

func (r *Reconciler) anyKubeconfig(ctx context.Context, hc *v1.HostCluster, names []string) []byte {
	for _, n := range names {
		if data, err := r.secretData(ctx, hc.Namespace, n, v1.KubeconfigSecretKey); err == nil {
			return data
		}
	}
	return nil
}

// cleanTarget deletes KubeOpera's labelled Flux objects on the target, each
// Kustomization set to orphan what it applied first, and returns those
// still there (Flux has yet to remove its finalizer) as "Kind ns/name".
func (r *Reconciler) cleanTarget(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) ([]string, error) {
	timeout := min(10*time.Second, r.CleanupTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = timeout
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	sel := metav1.ListOptions{LabelSelector: v1.ClusterIDLabel + "=" + hc.Name}
	var left []string
	for _, gvr := range fluxResources {
		res := dyn.Resource(gvr).Namespace(FluxNamespace)
		list, err := res.List(ctx, sel)
		if apierrors.IsNotFound(err) {
			continue // no Flux on the target: nothing was applied
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
		}
		for i := range list.Items {
			if err := deleteFluxObject(ctx, res, gvr, &list.Items[i]); err != nil {
				return nil, err
			}
			left = append(left, fmt.Sprintf("%s %s/%s", fluxKinds[gvr.Resource], FluxNamespace, list.Items[i].GetName()))
		}
	}
	return left, nil
}

// deleteFluxObject deletes o unless its deletion is already pending; a
// Kustomization gets deletionPolicy Orphan first, so kustomize-controller
// leaves what it applied running, even when an older KubeOpera created it
// without that policy.
func deleteFluxObject(ctx context.Context, res dynamic.ResourceInterface, gvr schema.GroupVersionResource, o *unstructured.Unstructured) error {
	if o.GetDeletionTimestamp() != nil {
		return nil
	}
	if gvr == kustomizations {
		if p, _, _ := unstructured.NestedString(o.Object, "spec", "deletionPolicy"); p != deletionPolicyOrphan {
			patch := []byte(`{"spec":{"deletionPolicy":"` + deletionPolicyOrphan + `"}}`)
			if _, err := res.Patch(ctx, o.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("set deletionPolicy Orphan on Kustomization %s: %w", o.GetName(), err)
			}
		}
	}
	// Preconditions: a Kustomization replaced since the patch is not
	// deleted with a policy that was not checked.
	uid := o.GetUID()
	err := res.Delete(ctx, o.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete %s %s: %w", fluxKinds[gvr.Resource], o.GetName(), err)
	}
	return nil
}

// forget lets the pipeline drop what it keeps for a deleted cluster (its
// connection, what it remembers of the Flux install).
func (r *Reconciler) forget(hc *v1.HostCluster) {
	if f, ok := r.Pipeline.(interface{ Forget(hc *v1.HostCluster) }); ok {
		f.Forget(hc)
	}
}
