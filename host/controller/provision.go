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
	"github.com/ochestra-tech/kubeopera/sdk"
)

// provision starts the provider's operation once (its ID kept in an
// annotation), polls it on every reconcile, and on success stores the
// kubeconfig exactly as a connect kubeconfig is stored.
func (r *Reconciler) provision(ctx context.Context, hc *v1.HostCluster) ([]byte, ctrl.Result, error) {
	secret := v1.KubeconfigSecretName(hc.Name)
	if meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) {
		return r.storedKubeconfig(ctx, hc, secret)
	}
	p := hc.Spec.Provisioning
	prov, err := r.Providers.Provider(p.Plugin)
	if err != nil {
		fail(hc, v1.ConditionProvisioned, v1.ReasonNoSuchProvider, err.Error())
		return nil, ctrl.Result{}, nil
	}
	var creds sdk.Credentials
	if p.CredentialRef != "" { // a provider that needs no cloud account (local) gets none
		creds, err = r.Credentials.Resolve(ctx, p.CredentialRef)
	}
	switch {
	case errors.Is(err, sdk.ErrNotFound):
		fail(hc, v1.ConditionProvisioned, v1.ReasonCredentialMissing, fmt.Sprintf("cloud credential %s: %v", p.CredentialRef, err))
		return nil, ctrl.Result{}, nil
	case err != nil: // the database or key may be back on the next try
		hc.Status.Message = fmt.Sprintf("cloud credential %s cannot be read yet, retrying: %v", p.CredentialRef, err)
		return nil, ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}
	hc.Status.Phase = v1.PhaseProvisioning
	op := hc.Annotations[OperationAnnotation]
	if op == "" {
		inputs, err := r.callInputs(ctx, hc)
		if err != nil {
			hc.Status.Message = err.Error() + "; retrying"
			return nil, ctrl.Result{RequeueAfter: r.PollInterval}, nil
		}
		started, err := prov.Provision(ctx, sdk.ProvisionRequest{ClusterID: hc.Name, Inputs: inputs, Credentials: creds})
		if err != nil {
			return nil, r.pluginError(hc, p.Plugin, "Provision", err), nil
		}
		if err := r.rememberOperation(ctx, hc, started.ID); err != nil {
			return nil, ctrl.Result{}, err
		}
		op = started.ID
	}
	st, err := prov.Status(ctx, sdk.StatusRequest{OperationID: op, Credentials: creds})
	if err != nil {
		return nil, r.pluginError(hc, p.Plugin, "Status", err), nil
	}
	switch st.State {
	case sdk.Failed:
		fail(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed, fmt.Sprintf("%s (%s): %s", p.Plugin, errorClass(st.ErrorClass), st.Message))
		return nil, ctrl.Result{}, nil
	case sdk.Succeeded:
	default:
		hc.Status.Message = fmt.Sprintf("%s: %s (%d%%)", p.Plugin, st.Message, st.Progress)
		setCondition(hc, v1.ConditionProvisioned, metav1.ConditionFalse, v1.ReasonInProgress, hc.Status.Message)
		return nil, ctrl.Result{RequeueAfter: r.PollInterval}, nil
	}
	kc, err := prov.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: op, Credentials: creds})
	if err != nil {
		return nil, r.pluginError(hc, p.Plugin, "Kubeconfig", err), nil
	}
	if err := r.storeKubeconfig(ctx, hc, secret, &kc); err != nil {
		return nil, ctrl.Result{}, err
	}
	hc.Status.KubeconfigSecret = secret
	hc.Status.Message = p.Plugin + ": cluster created; kubeconfig stored in " + secret
	setCondition(hc, v1.ConditionProvisioned, metav1.ConditionTrue, v1.ReasonProvisioned, hc.Status.Message)
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

// pluginError: a crashed or unavailable plugin is retried, bad input fails.
func (r *Reconciler) pluginError(hc *v1.HostCluster, plugin, call string, err error) ctrl.Result {
	switch {
	case sdk.IsRetryable(err):
		hc.Status.Message = fmt.Sprintf("%s: %s failed, retrying: %v", plugin, call, err)
		return ctrl.Result{RequeueAfter: r.PollInterval}
	case errors.Is(err, sdk.ErrNotFound):
		fail(hc, v1.ConditionProvisioned, v1.ReasonOperationLost, fmt.Sprintf("%s: %s: %v", plugin, call, err))
	default:
		fail(hc, v1.ConditionProvisioned, v1.ReasonProvisioningFailed, fmt.Sprintf("%s: %s: %v", plugin, call, err))
	}
	return ctrl.Result{}
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
