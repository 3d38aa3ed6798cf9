package controller

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// provision starts the provider's operation once (its ID kept in an
// annotation), polls it on every reconcile, and on success stores the
// kubeconfig exactly as a connect kubeconfig is stored. Until then it
// returns the step error that says what it waits for or what to fix.
func (r *Reconciler) provision(ctx context.Context, hc *v1.HostCluster) ([]byte, ctrl.Result, error) {
	secret := v1.KubeconfigSecretName(hc.Name)
	if meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) {
		return r.storedKubeconfig(ctx, hc, secret)
	}
	p := hc.Spec.Provisioning
	prov, err := r.Providers.Provider(p.Plugin)
	if err != nil {
		return nil, ctrl.Result{}, stall(hc, v1.ConditionProvisioned, v1.ReasonNoSuchProvider, err.Error()+"; install that plugin or pick another")
	}
	var creds sdk.Credentials
	if p.CredentialRef != "" { // a provider that needs no cloud account (local) gets none
		creds, err = r.Credentials.Resolve(ctx, p.CredentialRef)
	}
	switch {
	case errors.Is(err, sdk.ErrNotFound):
		return nil, ctrl.Result{}, stall(hc, v1.ConditionProvisioned, v1.ReasonCredentialMissing,
			fmt.Sprintf("cloud credential %s: %v; add it again or pick another", p.CredentialRef, err))
	case err != nil: // the database or key may be back on the next try
		return nil, ctrl.Result{}, step.Retry(r.PollInterval, "cloud credential %s cannot be read yet: %v", p.CredentialRef, err)
	}
	if meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionProvisioned) == nil {
		hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionFalse, v1.ReasonInProgress, p.Plugin+": starting")
	}
	op := hc.Annotations[OperationAnnotation]
	if op == "" {
		inputs, err := r.callInputs(ctx, hc)
		if err != nil {
			return nil, ctrl.Result{}, step.Retry(r.PollInterval, "%v", err)
		}
		started, err := prov.Provision(ctx, sdk.ProvisionRequest{ClusterID: hc.Name, Inputs: inputs, Credentials: creds})
		if err != nil {
			return nil, ctrl.Result{}, r.pluginError(hc, p.Plugin, "Provision", err)
		}
		if err := r.rememberOperation(ctx, hc, started.ID); err != nil {
			return nil, ctrl.Result{}, err
		}
		op = started.ID
	}
	st, err := prov.Status(ctx, sdk.StatusRequest{OperationID: op, Credentials: creds})
	if err != nil {
		return nil, ctrl.Result{}, r.pluginError(hc, p.Plugin, "Status", err)
	}
	switch st.State {
	case sdk.Failed:
		return nil, ctrl.Result{}, stall(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed,
			fmt.Sprintf("%s (%s): %s", p.Plugin, errorClass(st.ErrorClass), st.Message))
	case sdk.Succeeded:
	default:
		msg := fmt.Sprintf("%s: %s (%d%%)", p.Plugin, st.Message, st.Progress)
		hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionFalse, v1.ReasonInProgress, msg)
		return nil, ctrl.Result{}, step.Wait(r.PollInterval, "%s", msg)
	}
	kc, err := prov.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: op, Credentials: creds})
	if err != nil {
		return nil, ctrl.Result{}, r.pluginError(hc, p.Plugin, "Kubeconfig", err)
	}
	if err := r.storeKubeconfig(ctx, hc, secret, &kc); err != nil {
		return nil, ctrl.Result{}, err
	}
	hc.Status.KubeconfigSecret = secret
	hc.Status.Message = p.Plugin + ": cluster created; kubeconfig stored in " + secret
	hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionTrue, v1.ReasonProvisioned, hc.Status.Message)
	var res ctrl.Result
	if !kc.ExpiresAt.IsZero() {
		res.RequeueAfter = r.refreshIn(kc.ExpiresAt)
	}
	return kc.Data, res, nil
}

// rememberOperation writes the operation ID before anything else happens, so
// a controller restarted from here polls the same operation.
func (r *Reconciler) rememberOperation(ctx context.Context, hc *v1.HostCluster, id string) error {
	patch := client.MergeFrom(hc.DeepCopy())
	if hc.Annotations == nil {
		hc.Annotations = map[string]string{}
	}
	hc.Annotations[OperationAnnotation] = id
	status := hc.Status.DeepCopy()
	if err := r.Patch(ctx, hc, patch); err != nil {
		return fmt.Errorf("record operation %s: %w", id, err)
	}
	hc.Status = *status // the answer carries the stored status, not this reconcile's
	return nil
}

// pluginError: a crashed or unavailable plugin is retried, bad input
// stalls.
func (r *Reconciler) pluginError(hc *v1.HostCluster, plugin, call string, err error) error {
	switch {
	case sdk.IsRetryable(err):
		return step.Retry(r.PollInterval, "%s: %s failed: %v", plugin, call, err)
	case errors.Is(err, sdk.ErrNotFound):
		return stall(hc, v1.ConditionProvisioned, v1.ReasonOperationLost, fmt.Sprintf("%s: %s: %v", plugin, call, err))
	}
	return stall(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed, fmt.Sprintf("%s: %s: %v", plugin, call, err))
}

func errorClass(c sdk.ErrorClass) string {
	if c == sdk.NoError {
		return "unclassified"
	}
	return string(c)
}

// storeKubeconfig writes the provider's kubeconfig and, when its credential
// expires, when (so the controller refreshes it in time).
func (r *Reconciler) storeKubeconfig(ctx context.Context, hc *v1.HostCluster, name string, kc *sdk.Kubeconfig) error {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hc.Namespace,
		Labels: map[string]string{v1.ClusterIDLabel: hc.Name}},
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{v1.KubeconfigSecretKey: kc.Data}}
	if !kc.ExpiresAt.IsZero() {
		s.Annotations = map[string]string{v1.KubeconfigExpiresAnnotation: kc.ExpiresAt.UTC().Format(time.RFC3339)}
	}
	err := r.Create(ctx, s)
	if apierrors.IsAlreadyExists(err) {
		err = r.Update(ctx, s)
	}
	if err != nil {
		return fmt.Errorf("store kubeconfig in %s: %w", name, err)
	}
	return nil
}
