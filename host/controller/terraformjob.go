package controller

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
)

// noteTerraformJob records in status.terraformJob the Job that runs the
// cluster's terraform apply, once there is one, so the dashboard points at
// its logs only when they exist: a plugin running terraform in its own
// process leaves no Job. Plugins do not report how they ran terraform, so
// the Job the Terraform runner names provision-<id> is looked up by name.
// It is read past the manager's cache (a cached read would start a
// cluster-wide watch of Jobs the controller has no right to); a failed
// read only leaves the field for the next reconcile.
func (r *Reconciler) noteTerraformJob(ctx context.Context, hc *v1.HostCluster) {
	if hc.Status.TerraformJob != "" {
		return
	}
	var reader client.Reader = r.Client
	if r.APIReader != nil {
		reader = r.APIReader
	}
	name := terraform.JobName(hc.Name, terraform.Apply)
	var job batchv1.Job
	err := reader.Get(ctx, client.ObjectKey{Namespace: terraform.DefaultNamespace, Name: name}, &job)
	switch {
	case err == nil && job.Labels[terraform.LabelClusterID] == hc.Name:
		hc.Status.TerraformJob = name
	case err != nil && !apierrors.IsNotFound(err):
		ctrl.LoggerFrom(ctx).V(1).Info("terraform Job not looked up; retried on the next reconcile", "job", name, "error", err.Error())
	}
}
