package controller

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// validateAccess reaches a connected cluster's API server through the
// stored kubeconfig. A failure to connect is retried with a growing delay
// for AccessRetryWindow, then stalled with the underlying error; a
// kubeconfig that can never work (unparsable, bad certificate data,
// untrusted server certificate, refused credentials) stalls at once.
func (r *Reconciler) validateAccess(ctx context.Context, hc *v1.HostCluster) ([]byte, error) {
	ref := hc.Spec.ConnectKubeconfigSecretRef
	data, err := r.secretData(ctx, hc.Namespace, ref.Name, keyOr(ref.Key))
	if err != nil {
		return nil, r.retryAccess(hc, fmt.Errorf("kubeconfig Secret %s: %w", ref.Name, err))
	}
	if meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAccessValidated) {
		return data, nil
	}
	cfg, err := restConfig(data)
	if err != nil {
		// The cache can be behind a fix the user made just before the
		// change that started this reconcile: confirm on the API server
		// before failing the cluster (Failed lasts until the next spec
		// change).
		if fresh, ferr := r.freshSecretData(ctx, hc.Namespace, ref.Name, keyOr(ref.Key)); ferr == nil && !bytes.Equal(fresh, data) {
			data = fresh
			cfg, err = restConfig(data)
		}
	}
	if err != nil {
		return nil, stall(hc, v1.ConditionAccessValidated, v1.ReasonInvalidKubeconfig, fmt.Sprintf("kubeconfig Secret %s: %v", ref.Name, err))
	}
	version, err := serverVersion(ctx, cfg)
	switch {
	case err == nil:
		hc.Status.KubeconfigSecret = ref.Name
		hc.Status.KubernetesVersion = version // inventory, in this reconcile, need not ask again
		msg := fmt.Sprintf("API server %s answered (Kubernetes %s)", cfg.Host, version)
		hc.SetCondition(v1.ConditionAccessValidated, metav1.ConditionTrue, v1.ReasonReachable, msg)
		hc.Status.Message = msg
		return data, nil
	case permanent(err):
		return nil, stall(hc, v1.ConditionAccessValidated, v1.ReasonAccessRefused, fmt.Sprintf("API server %s: %v", cfg.Host, err))
	}
	return nil, r.retryAccess(hc, fmt.Errorf("API server %s: %w", cfg.Host, err))
}

// retryAccess records a transient failure and retries after a delay that
// grows with the time spent failing, until the window is over.
func (r *Reconciler) retryAccess(hc *v1.HostCluster, err error) error {
	hc.SetCondition(v1.ConditionAccessValidated, metav1.ConditionFalse, v1.ReasonUnreachable, err.Error())
	since := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAccessValidated).LastTransitionTime.Time
	elapsed := time.Since(since)
	if elapsed >= r.AccessRetryWindow {
		return stall(hc, v1.ConditionAccessValidated, v1.ReasonUnreachable,
			fmt.Sprintf("gave up after %s: %v; check that the cluster is up and reachable from KubeOpera, then change the HostCluster to try again",
				r.AccessRetryWindow.Round(time.Second), err))
	}
	delay := min(max(elapsed, 500*time.Millisecond), 30*time.Second, r.AccessRetryWindow-elapsed+10*time.Millisecond)
	return step.Retry(delay, "%v; retried for up to %s more", err, (r.AccessRetryWindow - elapsed).Round(time.Second))
}

func restConfig(kubeconfig []byte) (*rest.Config, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = 10 * time.Second
	// Building a client loads the certificates, so bad certificate data is
	// reported here rather than as a connection failure.
	if _, err := rest.TransportFor(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// serverVersion asks the API server cfg reaches for its version, with one
// REST client (a clientset would build one for every API group first:
// most of a reconcile's CPU when thousands of clusters connect at once).
func serverVersion(ctx context.Context, cfg *rest.Config) (string, error) {
	d, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", err
	}
	body, err := d.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var v version.Info
	if err := json.Unmarshal(body, &v); err != nil {
		return "", fmt.Errorf("unreadable /version answer: %w", err)
	}
	return v.GitVersion, nil
}

// permanent reports errors that retrying cannot fix.
func permanent(err error) bool {
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		strings.Contains(err.Error(), "x509: ") || apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err)
}

func keyOr(key string) string {
	if key == "" {
		return v1.KubeconfigSecretKey
	}
	return key
}

func (r *Reconciler) secretData(ctx context.Context, ns, name, key string) ([]byte, error) {
	return readSecretKey(ctx, r.Client, ns, name, key)
}

// freshSecretData is secretData read from the API server, not the cache.
func (r *Reconciler) freshSecretData(ctx context.Context, ns, name, key string) ([]byte, error) {
	var reader client.Reader = r.Client
	if r.APIReader != nil {
		reader = r.APIReader
	}
	return readSecretKey(ctx, reader, ns, name, key)
}

func readSecretKey(ctx context.Context, reader client.Reader, ns, name, key string) ([]byte, error) {
	var s corev1.Secret
	if err := reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s); err != nil {
		return nil, err
	}
	data := s.Data[key]
	if len(data) == 0 {
		return nil, fmt.Errorf("has no key %q", key)
	}
	return data, nil
}
