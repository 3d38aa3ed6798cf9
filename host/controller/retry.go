package controller

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// retry takes up a retry request (v1.RetryAnnotation) of a Failed cluster
// once, and reports whether it did. It records the request in
// status.retried, in the status write that also clears Stalled, and
// forgets the failed step: every condition but a True Provisioned goes
// (the pipeline's steps are idempotent and run again), and a provisioning
// that failed forgets its operation, so the plugin's Provision is called
// again for the same cluster ID and resumes what it made.
func (r *Reconciler) retry(ctx context.Context, hc *v1.HostCluster) (bool, error) {
	req := hc.Annotations[v1.RetryAnnotation]
	if req == "" || req == hc.Status.Retried {
		return false, nil
	}
	// The cache may hold a copy from before this request was taken up:
	// taken up twice, a provisioning would be started twice.
	if r.APIReader != nil {
		fresh := &v1.HostCluster{}
		if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(hc), fresh); err != nil {
			return false, err
		}
		if fresh.Status.Retried == req {
			return false, nil
		}
	}
	provisioned := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionProvisioned)
	var keep []metav1.Condition
	if provisioned != nil && provisioned.Status == metav1.ConditionTrue {
		keep = append(keep, *provisioned)
	} else if hc.Annotations[OperationAnnotation] != "" || hc.Annotations[v1.AutoRetriesAnnotation] != "" {
		// A person's retry starts the automatic retries' count again.
		if err := r.annotate(ctx, hc, map[string]*string{OperationAnnotation: nil, v1.AutoRetriesAnnotation: nil}); err != nil {
			return false, err
		}
	}
	hc.Status.Conditions = keep
	hc.Status.Retried = req
	hc.Status.Message = "retrying: starting the step that failed again"
	return true, nil
}
