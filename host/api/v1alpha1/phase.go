package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DerivePhase is the phase a HostCluster is in, derived from the object and
// nothing else: deletion, a teardown request that has not failed, a
// Stalled condition (the user must act) unless a retry was asked for since,
// a day-2 change running or asked for, then the first step whose condition
// is not yet True. The controller sets status.phase from it and from no
// other source, and the server shows the phase it derives from the live
// object, so a request recorded on the HostCluster (an annotation, a new
// spec generation) shows at once, before the controller takes it up, and
// nobody writes a predicted phase anywhere.
//
// Steps redone for each spec generation (the pipeline's) count as done
// only when their condition was observed for the current generation.
func DerivePhase(hc *HostCluster) Phase {
	switch {
	case !hc.DeletionTimestamp.IsZero():
		return PhaseDeleting
	case teardownRequested(hc):
		return PhaseTearingDown
	case Stalled(hc) && !RetryRequested(hc):
		return PhaseFailed
	case hc.updating() || hc.updateRequested():
		return PhaseUpdating
	case hc.conditionTrueNow(ConditionReady):
		return PhaseReady
	}
	first, reaching := ConditionProvisioned, PhaseProvisioning
	if hc.Spec.Mode == ModeConnectExisting {
		first, reaching = ConditionAccessValidated, PhaseValidatingAccess
	}
	c := meta.FindStatusCondition(hc.Status.Conditions, first)
	switch {
	case c == nil:
		return PhasePending
	case c.Status != metav1.ConditionTrue:
		return reaching
	case !hc.conditionTrueNow(ConditionFluxReady):
		return PhaseBootstrappingFlux
	case !hc.conditionTrueNow(ConditionGitOpsPushed):
		return PhaseGeneratingGitOpsTree
	}
	return PhaseInstallingKubeOpera // Flux applying the tree, then the first admin
}

// teardownRequested: a teardown was asked for and that request has not
// failed.
func teardownRequested(hc *HostCluster) bool {
	req := hc.Annotations[TeardownAnnotation]
	return req != "" && hc.Annotations[TeardownFailedAnnotation] != req
}

// Stalled reports whether the controller stopped on a failure that needs
// a person (a retry, a new spec or a teardown).
func Stalled(hc *HostCluster) bool {
	return meta.IsStatusConditionTrue(hc.Status.Conditions, ConditionStalled)
}

// RetryRequested reports whether a retry was asked for (RetryAnnotation)
// that the controller has not taken up yet.
func RetryRequested(hc *HostCluster) bool {
	req := hc.Annotations[RetryAnnotation]
	return req != "" && req != hc.Status.Retried
}

// TeardownRequested reports whether a teardown was asked for and that
// request has not failed.
func TeardownRequested(hc *HostCluster) bool { return teardownRequested(hc) }

// updateRequested: the spec of a cluster that was Ready changed and the
// controller has not written a status for the new generation yet (a day-2
// change asked for, not yet taken up).
func (hc *HostCluster) updateRequested() bool {
	c := meta.FindStatusCondition(hc.Status.Conditions, ConditionReady)
	return hc.Status.ObservedGeneration != 0 && hc.Status.ObservedGeneration < hc.Generation &&
		c != nil && c.Status == metav1.ConditionTrue
}

// updating: the plugin's Update for the current generation is running.
func (hc *HostCluster) updating() bool {
	c := meta.FindStatusCondition(hc.Status.Conditions, ConditionUpdated)
	return c != nil && c.Status == metav1.ConditionFalse && c.Reason == ReasonInProgress && c.ObservedGeneration == hc.Generation
}

// conditionTrueNow reports whether condition typ is True for the current
// spec generation.
func (hc *HostCluster) conditionTrueNow(typ string) bool {
	c := meta.FindStatusCondition(hc.Status.Conditions, typ)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hc.Generation
}

// SetCondition records condition typ for the current spec generation; its
// transition time changes only when its status does.
func (hc *HostCluster) SetCondition(typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&hc.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: msg, ObservedGeneration: hc.Generation})
}
