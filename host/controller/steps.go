package controller

import (
	"context"
	"errors"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// pass is one reconcile of one HostCluster: what its steps share.
type pass struct {
	hc *v1.HostCluster
	// before is the HostCluster as it was read, or as this reconcile last
	// wrote it (announce); the status is written as a patch from it.
	before *v1.HostCluster
	// kubeconfig reaches the cluster once the reach step has it.
	kubeconfig []byte
	// wake is the soonest timed wake-up the steps asked for.
	wake step.Later
}

// stepFunc is one step of a reconcile. The reconcile runs its steps in
// order, as Flux's reconcile funcs and Cluster API's machine reconcile
// funcs run theirs: a step returns nil to let the next one run, step.ErrDone
// when there is nothing more to do this time, or the step vocabulary's
// error (step.Wait, step.Retry, step.Stall, any other error), which report
// records on the HostCluster and which ends the steps there. A step that
// is done but wants to be looked at again later (a kubeconfig to refresh,
// the next inventory) asks with p.wake.In.
type stepFunc func(ctx context.Context, p *pass) error

// steps are the reconcile's steps of a HostCluster that is not being
// deleted: a requested teardown, a requested retry, reaching the cluster
// (access or provisioning), a day-2 update, announcing the pipeline, the
// shared pipeline and the inventory.
func (r *Reconciler) steps() []stepFunc {
	return []stepFunc{r.teardownStep, r.retryStep, r.reachStep, r.updateStep, r.announceStep, r.pipelineStep, r.inventoryStep}
}

// unrecorded is an error a step cannot record on the HostCluster without
// misstating it (a failed read while taking up a retry: recorded, it
// would clear Stalled from a cluster that is still Failed). The reconcile
// returns it instead, and controller-runtime retries with its backoff.
type unrecorded struct{ err error }

func (e *unrecorded) Error() string { return e.err.Error() }
func (e *unrecorded) Unwrap() error { return e.err }

// runSteps runs the steps in order until one does not return nil.
func (r *Reconciler) runSteps(ctx context.Context, p *pass) error {
	for _, run := range r.steps() {
		err := run(ctx, p)
		var up *unrecorded
		switch {
		case err == nil:
			continue
		case errors.As(err, &up):
			return up.err
		default:
			p.wake.In(r.report(ctx, p.hc, err))
			return nil
		}
	}
	return nil
}

// teardownStep runs a requested teardown; nothing else runs then.
func (r *Reconciler) teardownStep(ctx context.Context, p *pass) error {
	req := p.hc.Annotations[v1.TeardownAnnotation]
	if req == "" {
		return nil
	}
	if err := r.teardown(ctx, p.hc, req); err != nil {
		return err
	}
	return step.ErrDone
}

// retryStep takes up a retry of a Failed cluster. A Failed cluster with
// no new retry stays as it is until its spec changes; a new spec starts
// over.
func (r *Reconciler) retryStep(ctx context.Context, p *pass) error {
	hc := p.hc
	if !v1.Stalled(hc) {
		return nil
	}
	retried, err := r.retry(ctx, hc)
	switch {
	case err != nil:
		return &unrecorded{err}
	case retried:
	case hc.Status.ObservedGeneration == hc.Generation:
		return step.ErrDone
	default:
		hc.Status.Conditions = nil
	}
	return nil
}

// reachStep validates access (connect) or provisions (provision_*) and
// keeps the cluster's kubeconfig in the pass once it has one.
func (r *Reconciler) reachStep(ctx context.Context, p *pass) error {
	var err error
	if p.hc.Spec.Mode == v1.ModeConnectExisting {
		p.kubeconfig, err = r.validateAccess(ctx, p.hc)
	} else {
		p.kubeconfig, err = r.provision(ctx, p)
	}
	if err == nil && p.kubeconfig == nil {
		return step.ErrDone
	}
	return err
}

// updateStep carries out a day-2 change (scale, upgrade).
func (r *Reconciler) updateStep(ctx context.Context, p *pass) error {
	return r.update(ctx, p.hc)
}

// pipelineStep runs the shared pipeline and records its outcome itself,
// then lets the inventory run: a cluster's version and nodes are read
// whether or not its pipeline has finished.
func (r *Reconciler) pipelineStep(ctx context.Context, p *pass) error {
	p.wake.In(r.report(ctx, p.hc, r.runPipeline(ctx, p.hc, p.kubeconfig)))
	return nil
}
