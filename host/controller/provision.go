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

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// provision starts the provider's operation once (its ID kept in an
// annotation), polls it on every reconcile, and on success stores the
// kubeconfig exactly as a connect kubeconfig is stored. Until then it
// returns the step error that says what it waits for or what to fix. A
// kubeconfig that expires asks p for a wake-up in time to refresh it.
func (r *Reconciler) provision(ctx context.Context, p *pass) ([]byte, error) {
	hc := p.hc
	secret := v1.KubeconfigSecretName(hc.Name)
	if meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) {
		return r.storedKubeconfig(ctx, p, secret)
	}
	spec := hc.Spec.Provisioning
	prov, creds, err := r.pluginFor(ctx, hc, "")
	if err != nil {
		return nil, r.provisionStalled(hc, err)
	}
	if meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionProvisioned) == nil {
		hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionFalse, v1.ReasonInProgress, spec.Plugin+": starting")
	}
	st, err := r.follow(ctx, hc, prov, creds, operation{call: "Provision", annotation: OperationAnnotation,
		start: func(ctx context.Context) (sdk.Operation, error) {
			inputs, err := r.callInputs(ctx, hc)
			if err != nil {
				return sdk.Operation{}, sdk.Unavailable("%v", err)
			}
			return prov.Provision(ctx, sdk.ProvisionRequest{ClusterID: hc.Name, Inputs: inputs, Credentials: creds})
		}})
	if hc.Annotations[OperationAnnotation] != "" {
		r.noteTerraformJob(ctx, hc)
	}
	var waiting *step.Waiting
	switch {
	case errors.As(err, &waiting) && waiting.Reason == v1.ReasonWaiting:
		hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionFalse, v1.ReasonInProgress, waiting.Message)
		return nil, err
	case err != nil:
		return nil, r.provisionStalled(hc, err)
	case st.State == sdk.Failed:
		return nil, r.provisionFailed(ctx, hc, st)
	}
	kc, err := prov.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: hc.Annotations[OperationAnnotation], Credentials: creds})
	if err != nil {
		return nil, r.provisionStalled(hc, r.callError(operation{}, spec.Plugin, "Kubeconfig", err))
	}
	if err := r.storeKubeconfig(ctx, hc, secret, &kc); err != nil {
		return nil, err
	}
	hc.Status.KubeconfigSecret = secret
	hc.Status.Message = spec.Plugin + ": cluster created; kubeconfig stored in " + secret
	hc.SetCondition(v1.ConditionProvisioned, metav1.ConditionTrue, v1.ReasonProvisioned, hc.Status.Message)
	if !kc.ExpiresAt.IsZero() {
		p.wake.In(r.refreshIn(kc.ExpiresAt))
	}
	return kc.Data, nil
}

// provisionStalled turns a refusal of the plugin operation helper into the
// Stalled Provisioned condition, with what to do about it; anything else
// (a retry) passes through.
func (r *Reconciler) provisionStalled(hc *v1.HostCluster, err error) error {
	var no *refused
	if !errors.As(err, &no) {
		return err
	}
	msg := no.Message
	switch no.Reason {
	case v1.ReasonNoSuchProvider:
		msg += "; install that plugin or pick another"
	case v1.ReasonCredentialMissing:
		msg += "; add it again or pick another"
	case "":
		no.Reason = v1.ReasonProvisioningFailed
	}
	return stall(hc, v1.ConditionProvisioned, no.Reason, msg)
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
