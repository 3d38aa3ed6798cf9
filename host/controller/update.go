package controller

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/hostenv"
)

// update moves a provisioned cluster to the spec's nodeCount and
// kubernetesVersion (day 2) through the plugin operation helper: one
// Update per spec generation (its ID kept in UpdateOperationAnnotation),
// followed by Status while the phase is Updating. It asks only for what
// differs from the observed status. Success records the observed values
// and Updated True; a refusal or failure records Updated False
// (UpdateFailed) with the reason and leaves the cluster as it was, Ready,
// until the spec changes again. It returns the step error while the
// operation runs.
func (r *Reconciler) update(ctx context.Context, hc *v1.HostCluster) error {
	p, c := hc.Spec.Provisioning, meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionUpdated)
	if p == nil {
		return nil // connected: nothing of KubeOpera's to change
	}
	if c != nil && c.ObservedGeneration == hc.Generation && c.Reason != v1.ReasonInProgress {
		if hc.Annotations[v1.UpdateOperationAnnotation] != "" { // the finished operation's
			return r.forgetUpdate(ctx, hc)
		}
		return nil // this generation's update is over
	}
	nodes, version := r.wanted(hc)
	if nodes == 0 && version == "" && hc.Annotations[v1.UpdateOperationAnnotation] == "" {
		if c != nil || hc.Spec.NodeCount != nil || hc.Spec.KubernetesVersion != "" {
			hc.SetCondition(v1.ConditionUpdated, metav1.ConditionTrue, v1.ReasonUpdated, "the cluster has the nodes and version the spec asks for")
		}
		return nil
	}
	prov, creds, err := r.pluginFor(ctx, hc, "updating: ")
	var no *refused
	if errors.As(err, &no) {
		return r.updateEnded(ctx, hc, err)
	} else if err != nil {
		return err
	}
	hc.SetCondition(v1.ConditionUpdated, metav1.ConditionFalse, v1.ReasonInProgress, "updating: "+describe(nodes, version))
	st, err := r.follow(ctx, hc, prov, creds, operation{call: "Update", annotation: v1.UpdateOperationAnnotation, what: "updating: ",
		start: r.startUpdate(hc, prov, creds, nodes, version),
		also:  map[string]string{updateGenerationAnnotation: strconv.FormatInt(hc.Generation, 10)}})
	var waiting *step.Waiting
	switch {
	case errors.As(err, &waiting) && waiting.Reason == v1.ReasonWaiting:
		hc.SetCondition(v1.ConditionUpdated, metav1.ConditionFalse, v1.ReasonInProgress, waiting.Message)
		return err
	case errors.As(err, &no):
		return r.updateEnded(ctx, hc, err)
	case err != nil: // retried: the plugin, the credential store or the API server may be back
		return err
	case st.State == sdk.Failed:
		return r.updateEnded(ctx, hc, fmt.Errorf("%s (%s): %s", p.Plugin, errorClass(st.ErrorClass), st.Message))
	}
	if st.NodeCount > 0 {
		workers := int32(st.NodeCount)
		hc.Status.WorkerNodeCount = &workers
	}
	if st.KubernetesVersion != "" {
		hc.Status.KubernetesVersion = st.KubernetesVersion
	}
	// The cluster changed: its inventory is read again in this reconcile,
	// even when the phase stays Ready (a fast plugin finishes at once).
	hc.Status.InventoryTime = nil
	if hc.Annotations[updateGenerationAnnotation] != strconv.FormatInt(hc.Generation, 10) {
		// The spec changed while the plugin worked on an older one.
		if err := r.forgetUpdate(ctx, hc); err != nil {
			return err
		}
		return step.Wait(r.PollInterval, "updating: the spec changed during the update; applying the newer one")
	}
	hc.Status.Message = fmt.Sprintf("%s: %s", p.Plugin, strings.TrimSpace(st.Message))
	hc.SetCondition(v1.ConditionUpdated, metav1.ConditionTrue, v1.ReasonUpdated, hc.Status.Message)
	// The operation's annotations go on the next reconcile, once this
	// status is written: removed now, a reconcile of a cached copy without
	// them but with the old status would start the Update again.
	return nil
}

// updateGenerationAnnotation is the spec generation the running Update
// was started for.
const updateGenerationAnnotation = "kubeopera.io/update-generation"

// forgetUpdate removes the finished Update's annotations.
func (r *Reconciler) forgetUpdate(ctx context.Context, hc *v1.HostCluster) error {
	return r.annotate(ctx, hc, map[string]*string{v1.UpdateOperationAnnotation: nil, updateGenerationAnnotation: nil})
}

// startUpdate is how the Update operation of update starts.
func (r *Reconciler) startUpdate(hc *v1.HostCluster, prov sdk.Provider, creds sdk.Credentials, nodes int, version string) func(context.Context) (sdk.Operation, error) {
	return func(ctx context.Context) (sdk.Operation, error) {
		u, ok := prov.(sdk.Updater)
		if !ok {
			return sdk.Operation{}, sdk.Unimplemented("provider %s cannot change a running cluster", hc.Spec.Provisioning.Plugin)
		}
		inputs, err := r.callInputs(ctx, hc)
		if err != nil {
			return sdk.Operation{}, sdk.Unavailable("%v", err)
		}
		info, err := prov.GetInfo(ctx)
		if err != nil {
			return sdk.Operation{}, err
		}
		return u.Update(ctx, sdk.UpdateRequest{ClusterID: hc.Name, Inputs: inputs, Credentials: creds,
			NodeCount: nodes, KubernetesVersion: version, CurrentKubernetesVersion: hc.Status.KubernetesVersion,
			CurrentInputs: hostenv.CurrentInputs(info, inputs, int(observedWorkers(hc)), hc.Status.KubernetesVersion)})
	}
}

// observedWorkers is the cluster's worker count as the host last observed
// it.
func observedWorkers(hc *v1.HostCluster) int32 {
	have := hc.Status.NodeCount // read before workers were counted apart
	if w := hc.Status.WorkerNodeCount; w != nil {
		have = *w
	}
	return have
}

// wanted is what the spec asks for that the observed status does not have:
// a node count (0: keep) and a Kubernetes version ("": keep).
func (r *Reconciler) wanted(hc *v1.HostCluster) (int, string) {
	var nodes int
	have := observedWorkers(hc)
	if n := hc.Spec.NodeCount; n != nil && *n != have {
		nodes = int(*n)
	}
	version := hc.Spec.KubernetesVersion
	if version != "" && sdk.SameVersion(version, hc.Status.KubernetesVersion) {
		version = ""
	}
	return nodes, version
}

func describe(nodes int, version string) string {
	var parts []string
	if nodes > 0 {
		parts = append(parts, fmt.Sprintf("scaling to %d nodes", nodes))
	}
	if version != "" {
		parts = append(parts, "upgrading to Kubernetes "+version)
	}
	return strings.Join(parts, ", ")
}

// updateEnded records an update that cannot succeed: Updated False with
// the reason, the operation forgotten; the cluster stays as it was and
// the pipeline goes on (Ready). It is not tried again until the spec
// changes.
func (r *Reconciler) updateEnded(ctx context.Context, hc *v1.HostCluster, err error) error {
	msg := "update failed, the cluster is unchanged: " + strings.TrimPrefix(err.Error(), "updating: ") +
		"; change spec.nodeCount or spec.kubernetesVersion to try again"
	hc.SetCondition(v1.ConditionUpdated, metav1.ConditionFalse, v1.ReasonUpdateFailed, msg)
	r.Recorder.Eventf(hc, "Warning", v1.ReasonUpdateFailed, "%s", msg)
	return nil // the annotations go on the next reconcile, as after a success
}
