package controller

import (
	"context"
	"fmt"
	"strconv"
	"time"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// Automatic retries of a provisioning that failed with class RETRYABLE:
// at most maxAutoRetries (Reconciler.AutoRetries when set), the first
// after autoRetryBase, doubling.
const (
	maxAutoRetries = 3
	autoRetryBase  = 30 * time.Second
)

// provisionFailed acts on the class of a failed provisioning, as the SDK
// documents it: RETRYABLE is started again by the controller (a new
// operation for the same cluster ID, so the plugin resumes what it made)
// up to maxAutoRetries, shown as retrying; USER_FIXABLE (and a RETRYABLE
// failure past the cap, and one without a class) is Failed until a person
// retries or changes it; TERMINAL is Failed and a retry is refused.
func (r *Reconciler) provisionFailed(ctx context.Context, hc *v1.HostCluster, st sdk.OperationStatus) error {
	plugin := hc.Spec.Provisioning.Plugin
	msg := fmt.Sprintf("%s (%s): %s", plugin, errorClass(st.ErrorClass), st.Message)
	switch st.ErrorClass {
	case sdk.Terminal:
		return stall(hc, v1.ConditionProvisioned, v1.ReasonProvisioningTerminal,
			msg+"; the plugin says starting it again cannot succeed: tear the cluster down and create it again with other inputs")
	case sdk.Retryable:
		n, _ := strconv.Atoi(hc.Annotations[v1.AutoRetriesAnnotation])
		max := r.autoRetries()
		if n >= max {
			return stall(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed,
				fmt.Sprintf("%s; failed again after %d automatic retries: retry it yourself once the cause is fixed", msg, n))
		}
		next := strconv.Itoa(n + 1)
		if err := r.annotate(ctx, hc, map[string]*string{OperationAnnotation: nil, v1.AutoRetriesAnnotation: &next}); err != nil {
			return err
		}
		after := autoRetryBase << n
		return step.Retry(after, "%s; retrying automatically in %s (%d of %d)", msg, after, n+1, max)
	}
	return stall(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed, msg)
}

// autoRetries is the cap of automatic retries: Reconciler.AutoRetries, or
// maxAutoRetries when unset.
func (r *Reconciler) autoRetries() int {
	if r.AutoRetries == nil {
		return maxAutoRetries
	}
	return *r.AutoRetries
}
