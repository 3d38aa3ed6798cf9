package controller

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// teardown runs the provider plugin's Destroy for a cluster whose
// TeardownAnnotation holds request req: once per request (the operation ID
// kept in DestroyOperationAnnotation), polled while the phase is
// TearingDown. Once the cloud side is gone it records TornDown and deletes
// the HostCluster (the finalizer then cleans the host side only). A failed
// Destroy stalls the cluster (Failed) with the plugin's message until a
// new request. It returns what step.Report records.
func (r *Reconciler) teardown(ctx context.Context, hc *v1.HostCluster, req string) error {
	if hc.Annotations[v1.TeardownFailedAnnotation] == req {
		return nil // Failed until the teardown is requested again
	}
	// A new request starts over, whatever stalled the cluster before.
	meta.RemoveStatusCondition(&hc.Status.Conditions, v1.ConditionStalled)
	p := hc.Spec.Provisioning
	if p == nil {
		return r.teardownFailed(ctx, hc, req, v1.ReasonNotProvisioned,
			"teardown: KubeOpera did not provision this cluster, so it cannot destroy it; disconnect it instead")
	}
	prov, err := r.Providers.Provider(p.Plugin)
	if err != nil {
		return r.teardownFailed(ctx, hc, req, v1.ReasonNoSuchProvider,
			"teardown: "+err.Error()+"; install that plugin, then request the teardown again")
	}
	creds, err := r.Credentials.Resolve(ctx, p.CredentialRef)
	switch {
	case errors.Is(err, sdk.ErrNotFound):
		return r.teardownFailed(ctx, hc, req, v1.ReasonCredentialMissing,
			fmt.Sprintf("teardown: cloud credential %s: %v; restore it, then request the teardown again", p.CredentialRef, err))
	case err != nil:
		return tearingDown(hc, step.Retry(r.PollInterval, "tearing down: cloud credential %s cannot be read yet: %v", p.CredentialRef, err))
	}
	op := hc.Annotations[v1.DestroyOperationAnnotation]
	if op == "" {
		if err := r.releaseLoadBalancers(ctx, hc, req); err != nil {
			return err
		}
		started, err := prov.Destroy(ctx, sdk.DestroyRequest{ClusterID: hc.Name, Inputs: p.Inputs, Credentials: creds})
		if err != nil {
			return r.destroyError(ctx, hc, req, "Destroy", err)
		}
		if err := r.annotate(ctx, hc, map[string]*string{v1.DestroyOperationAnnotation: &started.ID}); err != nil {
			return err
		}
		op = started.ID
	}
	st, err := prov.Status(ctx, sdk.StatusRequest{OperationID: op, Credentials: creds})
	if err != nil {
		return r.destroyError(ctx, hc, req, "Status", err)
	}
	switch st.State {
	case sdk.Failed:
		return r.teardownFailed(ctx, hc, req, v1.ReasonDestroyFailed, fmt.Sprintf("teardown failed: %s (%s): %s",
			p.Plugin, errorClass(st.ErrorClass), st.Message))
	case sdk.Succeeded:
		return r.tornDown(ctx, hc, p.Plugin, st.Message)
	}
	return tearingDown(hc, step.Wait(r.PollInterval, "tearing down: %s: %s (%d%%); the cluster stays listed until its cloud resources are gone",
		p.Plugin, st.Message, st.Progress))
}

// tearingDown records on the TornDown condition what the teardown waits
// for, and returns it.
func tearingDown(hc *v1.HostCluster, err error) error {
	hc.SetCondition(v1.ConditionTornDown, metav1.ConditionFalse, v1.ReasonInProgress, err.Error())
	return err
}

// destroyError: a crashed or unavailable plugin is retried, the rest fails.
func (r *Reconciler) destroyError(ctx context.Context, hc *v1.HostCluster, req, call string, err error) error {
	plugin := hc.Spec.Provisioning.Plugin
	if sdk.IsRetryable(err) {
		return tearingDown(hc, step.Retry(r.PollInterval, "tearing down: %s: %s failed: %v", plugin, call, err))
	}
	return r.teardownFailed(ctx, hc, req, v1.ReasonDestroyFailed, fmt.Sprintf("teardown failed: %s: %s: %v", plugin, call, err))
}

// teardownFailed marks request req failed: the cluster stalls (Failed,
// with a Warning event) with msg, and the operation is forgotten so the
// next request starts a new Destroy.
func (r *Reconciler) teardownFailed(ctx context.Context, hc *v1.HostCluster, req, reason, msg string) error {
	if err := r.annotate(ctx, hc, map[string]*string{v1.TeardownFailedAnnotation: &req, v1.DestroyOperationAnnotation: nil}); err != nil {
		return err
	}
	if reason == v1.ReasonDestroyFailed {
		msg += "; fix the cause, then request the teardown again"
	}
	return stall(hc, v1.ConditionTornDown, reason, msg)
}

// tornDown records that the cloud side is gone, with the plugin's final
// word on it (what it deleted, and what it could not and the user must
// delete by hand), then deletes the
// HostCluster; the status is written first so the finalizer sees it.
func (r *Reconciler) tornDown(ctx context.Context, hc *v1.HostCluster, plugin, final string) error {
	before := hc.DeepCopy()
	if final == "" {
		final = "cloud resources deleted"
	}
	hc.SetCondition(v1.ConditionTornDown, metav1.ConditionTrue, v1.ReasonDestroyed, plugin+": "+final)
	hc.Status.Message = plugin + ": " + final + "; removing the cluster from KubeOpera"
	hc.Status.Phase = v1.DerivePhase(hc) // TearingDown
	if err := r.Status().Patch(ctx, hc, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("record the teardown: %w", err)
	}
	if err := r.Delete(ctx, hc); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete the torn-down HostCluster: %w", err)
	}
	return nil
}

// annotate sets (or, for nil, removes) annotations on hc with a patch,
// keeping the status this reconcile has made so far.
func (r *Reconciler) annotate(ctx context.Context, hc *v1.HostCluster, set map[string]*string) error {
	patch := client.MergeFrom(hc.DeepCopy())
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	for k, v := range set {
		if v == nil {
			delete(hc.Annotations, k)
		} else {
			hc.Annotations[k] = *v
		}
	}
	status := hc.Status.DeepCopy()
	if err := r.Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("record the teardown on HostCluster %s: %w", hc.Name, err)
	}
	hc.Status = *status // the answer carries the stored status, not this reconcile's
	return nil
}
