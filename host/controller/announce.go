package controller

import (
	"context"
	"strings"

	ctrl "sigs.k8s.io/controller-runtime"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// announcePipeline writes the status now, before the pipeline starts on a
// cluster just reached: its first step can hold this reconcile for minutes
// (Helm waits for Flux's hooks), and until the deferred write the status
// would still say Pending, ValidatingAccess or Provisioning although the
// cluster was reached. The phase comes from the conditions as everywhere
// (BootstrappingFlux here); before becomes what was written, so the
// deferred write and its event start from there. When the HostCluster
// changed since it was read, the steps end (step.ErrDone) and the newer
// version is reconciled instead.
func (r *Reconciler) announceStep(ctx context.Context, p *pass) error {
	hc, before := p.hc, p.before
	if r.Pipeline == nil {
		return nil // runPipeline answers at once
	}
	switch before.Status.Phase {
	case "", v1.PhasePending, v1.PhaseValidatingAccess, v1.PhaseProvisioning:
	default:
		return nil
	}
	if v1.DerivePhase(hc) != v1.PhaseBootstrappingFlux {
		return nil
	}
	hc.Status.Message = strings.TrimPrefix(hc.Status.Message+"; installing Flux", "; ")
	r.observe(ctx, hc, before.Status.Phase)
	hc.Status.ObservedGeneration = hc.Generation
	res, err := r.patchStatus(ctx, before, hc, ctrl.Result{}, nil)
	if err != nil || res.RequeueAfter > 0 {
		if err != nil {
			ctrl.LoggerFrom(ctx).Info("status not written before the pipeline; retrying", "error", err.Error())
		}
		p.wake.In(max(res.RequeueAfter, r.PollInterval))
		return step.ErrDone
	}
	*before = *hc.DeepCopy()
	return nil
}
