package controller

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// defaultRefreshBefore is how long before its expiry a provider kubeconfig
// is replaced: EKS tokens are treated as living 14 minutes, so a token is
// renewed about 10 minutes into its life.
const defaultRefreshBefore = 4 * time.Minute

// storedKubeconfig reads a provisioned cluster's kubeconfig Secret and, when
// its credential expires within RefreshBefore, asks the provider for a fresh
// one and stores it. It asks p for a wake-up in time for the next refresh,
// so the kubeconfig never lapses while the cluster is managed.
func (r *Reconciler) storedKubeconfig(ctx context.Context, p *pass, name string) ([]byte, error) {
	hc := p.hc
	var s corev1.Secret
	if err := r.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: name}, &s); err != nil {
		return nil, fmt.Errorf("kubeconfig Secret %s: %w", name, err)
	}
	data := s.Data[v1.KubeconfigSecretKey]
	raw, ok := s.Annotations[v1.KubeconfigExpiresAnnotation]
	if !ok {
		return data, nil
	}
	expires, err := time.Parse(time.RFC3339, raw)
	if err == nil && time.Until(expires) > r.RefreshBefore {
		p.wake.In(r.refreshIn(expires))
		return data, nil
	}
	kc, err := r.refreshKubeconfig(ctx, hc)
	if err != nil {
		if time.Now().Before(expires) { // the old credential still works; the refresh is retried
			ctrl.LoggerFrom(ctx).Info("kubeconfig refresh failed; the current one still works", "error", err.Error(), "expiresAt", expires)
			p.wake.In(r.PollInterval)
			return data, nil
		}
		return nil, err
	}
	if err := r.storeKubeconfig(ctx, hc, name, kc); err != nil {
		return nil, err
	}
	ctrl.LoggerFrom(ctx).V(1).Info("kubeconfig refreshed", "expiresAt", kc.ExpiresAt)
	p.wake.In(r.refreshIn(kc.ExpiresAt))
	return kc.Data, nil
}

// refreshIn is when to come back to refresh a credential expiring at t; at
// least a second, so a credential shorter-lived than RefreshBefore is
// renewed on every pass without spinning.
func (r *Reconciler) refreshIn(t time.Time) time.Duration {
	return max(time.Until(t)-r.RefreshBefore, time.Second)
}

// refreshKubeconfig calls the provider's Kubeconfig for the cluster's
// operation, with the plugin and credential the operation helper resolves
// (pluginFor). Any failure is a step.Retry on PollInterval, a refusal too:
// the cluster was made, and a credential put back or a plugin reinstalled
// lets the next try succeed; the phase is left alone.
func (r *Reconciler) refreshKubeconfig(ctx context.Context, hc *v1.HostCluster) (*sdk.Kubeconfig, error) {
	plugin := hc.Spec.Provisioning.Plugin
	retry := func(err error) error {
		return step.Retry(r.PollInterval, "%s: refreshing the expired kubeconfig failed: %v", plugin, err)
	}
	prov, creds, err := r.pluginFor(ctx, hc, "")
	if err != nil {
		return nil, retry(err)
	}
	kc, err := prov.Kubeconfig(ctx, sdk.KubeconfigRequest{OperationID: hc.Annotations[OperationAnnotation], Credentials: creds})
	if err != nil {
		return nil, retry(err)
	}
	return &kc, nil
}
