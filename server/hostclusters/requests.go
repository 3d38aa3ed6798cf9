package hostclusters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// cacheCatchUp bounds how long a request waits for the server's watch
// cache to hold what it wrote, so the next read shows it (read your own
// writes). Past it the answer goes out anyway: the cache follows within
// the watch's latency.
const cacheCatchUp = 3 * time.Second

// typed reads the unstructured HostCluster o as the controller's type, so
// the phase comes from the one v1alpha1.DerivePhase.
func typed(o *unstructured.Unstructured) *v1alpha1.HostCluster {
	hc := &v1alpha1.HostCluster{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, hc); err != nil {
		// The API server validated it against the CRD built from these
		// types; keep what the metadata says.
		hc.ObjectMeta = metav1.ObjectMeta{Name: o.GetName(), Annotations: o.GetAnnotations(), Generation: o.GetGeneration()}
	}
	return hc
}

// observed is what the server shows of a HostCluster: the derived phase,
// and the controller's message, or the request's own words while the
// controller has not reported on a request yet.
func observed(o *unstructured.Unstructured) Observed {
	hc := typed(o)
	phase := v1alpha1.DerivePhase(hc)
	msg := hc.Status.Message
	if phase != hc.Status.Phase {
		if m := requestMessages[phase]; m != "" {
			msg = m
		}
	}
	return Observed{Phase: string(phase), Message: msg, KubernetesVersion: hc.Status.KubernetesVersion,
		NodeCount: int(hc.Status.NodeCount), ReadyNodeCount: int(hc.Status.ReadyNodeCount), ClusterUID: hc.Status.ClusterUID}
}

// requestMessages word a request recorded on a HostCluster that the
// controller has not reported on yet, by the phase it derives to.
var requestMessages = map[v1alpha1.Phase]string{
	v1alpha1.PhasePending:     "waiting for the controller to take the cluster up",
	v1alpha1.PhaseTearingDown: "teardown requested: the provider plugin destroys the cluster's cloud resources; the cluster stays listed until they are gone",
	v1alpha1.PhaseUpdating:    "change requested: the provider plugin moves the cluster to its desired shape; the phase is Updating until it is done",
	v1alpha1.PhaseDeleting:    "disconnecting: waiting for the controller to remove KubeOpera's objects for this cluster",
}

// Exists reads the HostCluster from the API server, not the cache.
func (k *Kube) Exists(ctx context.Context, id string) (bool, error) {
	_, err := k.dyn.Resource(GVR).Namespace(Namespace).Get(ctx, id, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read HostCluster %s: %w", id, err)
	}
	return true, nil
}

// Teardown records a teardown request (TeardownAnnotation, a new value
// each time) on a cluster that is not being disconnected, changed or torn
// down already.
func (k *Kube) Teardown(ctx context.Context, id string) (Observed, error) {
	return k.request(ctx, id, "request the teardown of", func(hc *v1alpha1.HostCluster) (map[string]any, error) {
		if err := TeardownRefusal(v1alpha1.DerivePhase(hc)); err != nil {
			return nil, err
		}
		return annotate(v1alpha1.TeardownAnnotation), nil
	})
}

// TeardownRefusal is why a cluster in phase p cannot be torn down now;
// nil when it can. The API's actions and Teardown both decide by it.
func TeardownRefusal(p v1alpha1.Phase) *RefusedError {
	switch p {
	case v1alpha1.PhaseDeleting:
		return &RefusedError{string(p), "it is being disconnected; its cloud resources are no longer managed by KubeOpera"}
	case v1alpha1.PhaseTearingDown:
		return &RefusedError{string(p), "it is being torn down already"}
	case v1alpha1.PhaseUpdating:
		return &RefusedError{string(p), "a change of its nodes or version is running: tear it down once that is done or failed"}
	}
	return nil
}

// RetryRefusal is why a cluster in phase p cannot be retried; nil when
// its phase allows it (its plugin may still have called the failure
// TERMINAL, which Retry reads from the HostCluster).
func RetryRefusal(p v1alpha1.Phase) *RefusedError {
	if p != v1alpha1.PhaseFailed {
		return &RefusedError{string(p), fmt.Sprintf("it is %s, not Failed: only a Failed cluster is retried", p)}
	}
	return nil
}

// UpdateRefusal is why a cluster in phase p cannot be changed; nil when
// it can.
func UpdateRefusal(p v1alpha1.Phase) *RefusedError {
	if p != v1alpha1.PhaseReady {
		return &RefusedError{string(p), fmt.Sprintf("it is %s: change it once it is Ready", p)}
	}
	return nil
}

// Retry records a retry request (RetryAnnotation) on a Failed cluster
// whose teardown did not fail.
func (k *Kube) Retry(ctx context.Context, id string) (Observed, error) {
	return k.request(ctx, id, "request a retry of", func(hc *v1alpha1.HostCluster) (map[string]any, error) {
		if hc.Annotations[v1alpha1.TeardownAnnotation] != "" {
			return nil, ErrTeardownFailed
		}
		if err := RetryRefusal(v1alpha1.DerivePhase(hc)); err != nil {
			return nil, err
		}
		if c := meta.FindStatusCondition(hc.Status.Conditions, v1alpha1.ConditionProvisioned); c != nil && c.Reason == v1alpha1.ReasonProvisioningTerminal {
			return nil, &RefusedError{string(v1alpha1.PhaseFailed), "its provider plugin says the failure is TERMINAL (starting it again cannot succeed): " +
				"tear it down and create it again with other inputs"}
		}
		return annotate(v1alpha1.RetryAnnotation), nil
	})
}

// Update sets the desired node count and version of a Ready cluster.
func (k *Kube) Update(ctx context.Context, id string, nodeCount *int, version string) (Observed, error) {
	return k.request(ctx, id, "change", func(hc *v1alpha1.HostCluster) (map[string]any, error) {
		if err := UpdateRefusal(v1alpha1.DerivePhase(hc)); err != nil {
			return nil, err
		}
		spec := map[string]any{}
		if nodeCount != nil {
			spec["nodeCount"] = *nodeCount
		}
		if version != "" {
			spec["kubernetesVersion"] = version
		}
		return map[string]any{"spec": spec}, nil
	})
}

// annotate is a patch setting annotation key to the current time: a new
// value is a new request.
func annotate(key string) map[string]any {
	return map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		key: time.Now().UTC().Format(time.RFC3339Nano)}}}
}

// request reads HostCluster id, asks check for the patch of a request (or
// its refusal), writes the patch onto the version read, and waits for the
// watch cache to hold the result.
func (k *Kube) request(ctx context.Context, id, what string, check func(*v1alpha1.HostCluster) (map[string]any, error)) (Observed, error) {
	res := k.dyn.Resource(GVR).Namespace(Namespace)
	o, err := res.Get(ctx, id, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return Observed{}, fmt.Errorf("%s cluster %s: %w", what, id, ErrNoHostCluster)
	}
	if err != nil {
		return Observed{}, fmt.Errorf("read HostCluster %s: %w", id, err)
	}
	patch, err := check(typed(o))
	if err != nil {
		return Observed{}, err
	}
	md, _ := patch["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		patch["metadata"] = md
	}
	md["resourceVersion"] = o.GetResourceVersion()
	body, err := json.Marshal(patch)
	if err != nil {
		return Observed{}, err
	}
	out, err := res.Patch(ctx, id, types.MergePatchType, body, metav1.PatchOptions{})
	switch {
	case apierrors.IsConflict(err):
		return Observed{}, ErrChanged
	case apierrors.IsNotFound(err):
		return Observed{}, fmt.Errorf("%s cluster %s: %w", what, id, ErrNoHostCluster)
	case err != nil:
		return Observed{}, fmt.Errorf("%s HostCluster %s: %w", what, id, err)
	}
	k.awaitCached(ctx, id, o.GetResourceVersion())
	return observed(out), nil
}

// awaitCached waits (at most cacheCatchUp) until the watch cache no
// longer holds version old of HostCluster id: the write is in it, or the
// object is gone. Without a cache there is nothing to wait for.
func (k *Kube) awaitCached(ctx context.Context, id, old string) {
	if k.cache == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, cacheCatchUp)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		item, ok, _ := k.cache.GetStore().GetByKey(Namespace + "/" + id)
		e, isEntry := item.(*entry)
		if (old == "" && ok) || (old != "" && (!ok || (isEntry && e.ResourceVersion != old))) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// IsRefused reports whether err is a request the cluster's state refused
// (*RefusedError, ErrChanged, ErrTeardownFailed): a 409 for the caller.
func IsRefused(err error) bool {
	var r *RefusedError
	return errors.As(err, &r) || errors.Is(err, ErrChanged) || errors.Is(err, ErrTeardownFailed)
}
