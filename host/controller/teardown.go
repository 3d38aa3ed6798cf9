package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// teardown runs the provider plugin's Destroy for a cluster whose
// TeardownAnnotation holds request req, through the plugin operation
// helper: once per request (the operation ID kept in
// DestroyOperationAnnotation), polled while the phase is TearingDown. Once
// the cloud side is gone it records TornDown and deletes the HostCluster
// (the finalizer then cleans the host side only). A failed Destroy stalls
// the cluster (Failed) with the plugin's message until a new request. It
// returns what step.Report records.
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
	prov, creds, err := r.pluginFor(ctx, hc, "teardown: ")
	if err != nil {
		return r.teardownError(ctx, hc, req, err)
	}
	st, err := r.follow(ctx, hc, prov, creds, operation{call: "Destroy", annotation: v1.DestroyOperationAnnotation, what: "tearing down: ",
		start: func(ctx context.Context) (sdk.Operation, error) {
			if err := r.releaseLoadBalancers(ctx, hc, req); err != nil {
				return sdk.Operation{}, err
			}
			return prov.Destroy(ctx, sdk.DestroyRequest{ClusterID: hc.Name, Inputs: p.Inputs, Credentials: creds})
		}})
	switch {
	case err != nil:
		return r.teardownError(ctx, hc, req, err)
	case st.State == sdk.Failed:
		return r.teardownFailed(ctx, hc, req, v1.ReasonDestroyFailed, fmt.Sprintf("teardown failed: %s (%s): %s",
			p.Plugin, errorClass(st.ErrorClass), st.Message))
	}
	return r.tornDown(hc, p.Plugin, st.Message)
}

// teardownError: what waits is recorded on TornDown and retried; what the
// helper refused fails the request, with what to do about it.
func (r *Reconciler) teardownError(ctx context.Context, hc *v1.HostCluster, req string, err error) error {
	var no *refused
	if !errors.As(err, &no) {
		return tearingDown(hc, err)
	}
	msg := no.Message
	switch no.Reason {
	case v1.ReasonNoSuchProvider:
		msg += "; install that plugin, then request the teardown again"
	case v1.ReasonCredentialMissing:
		msg += "; restore it, then request the teardown again"
	default:
		no.Reason = v1.ReasonDestroyFailed
		msg = "teardown failed: " + strings.TrimPrefix(msg, "tearing down: ")
	}
	return r.teardownFailed(ctx, hc, req, no.Reason, msg)
}

// tearingDown records on the TornDown condition what the teardown waits
// for, and returns it.
func tearingDown(hc *v1.HostCluster, err error) error {
	hc.SetCondition(v1.ConditionTornDown, metav1.ConditionFalse, v1.ReasonInProgress, err.Error())
	return err
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
// delete by hand); the deferred status write then deletes the HostCluster
// (the finalizer sees the condition and leaves the target alone).
func (r *Reconciler) tornDown(hc *v1.HostCluster, plugin, final string) error {
	if final == "" {
		final = "cloud resources deleted"
	}
	hc.SetCondition(v1.ConditionTornDown, metav1.ConditionTrue, v1.ReasonDestroyed, plugin+": "+final)
	hc.Status.Message = plugin + ": " + final + "; removing the cluster from KubeOpera"
	return nil
}
