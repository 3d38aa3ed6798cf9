package devenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/fluxrun"
)

// fluxRun is Flux's controllers running against one onboarded cluster.
type fluxRun struct {
	dir  string
	ctrl *fluxrun.Controllers
}

func (f *fluxRun) stop() error {
	err := f.ctrl.Stop()
	return errors.Join(err, os.RemoveAll(f.dir))
}

// RunFlux watches the HostClusters until ctx ends: once the pipeline has
// installed Flux on a cluster (its chart's Deployments are Available), it
// starts source- and kustomize-controller against that cluster, and stops
// them when the HostCluster is gone. Failures are reported to say and
// retried on the next look.
func (e *Env) RunFlux(ctx context.Context, c client.Client, say func(string, ...any)) {
	_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
		var list v1.HostClusterList
		if err := c.List(ctx, &list, client.InNamespace(v1.Namespace)); err != nil {
			return false, nil
		}
		seen := map[string]bool{}
		for _, hc := range list.Items {
			seen[hc.Name] = true
			if hc.Status.FluxHealthy && hc.DeletionTimestamp == nil && !e.hasFlux(hc.Name) {
				if err := e.startFlux(ctx, c, hc.Name); err != nil {
					say("flux controllers for cluster %s: %v (retrying)", hc.Name, err)
				}
			}
		}
		e.stopFluxExcept(seen)
		return false, nil
	})
}

func (e *Env) hasFlux(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.flux[name] != nil
}

func (e *Env) startFlux(ctx context.Context, c client.Client, name string) error {
	var s corev1.Secret
	key := client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName(name)}
	if err := c.Get(ctx, key, &s); err != nil {
		return fmt.Errorf("kubeconfig Secret: %w", err)
	}
	dir := filepath.Join(e.Dir, "flux", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, s.Data[v1.KubeconfigSecretKey], 0o600); err != nil {
		return err
	}
	ctrl, err := fluxrun.Run(ctx, kubeconfig, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flux[name] = &fluxRun{dir: dir, ctrl: ctrl}
	return nil
}

// stopFluxExcept stops the controllers of clusters not in keep.
func (e *Env) stopFluxExcept(keep map[string]bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for name, f := range e.flux {
		if !keep[name] {
			_ = f.stop()
			delete(e.flux, name)
		}
	}
}

// FluxClusters names the clusters Flux's controllers run against.
func (e *Env) FluxClusters() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for name := range e.flux {
		out = append(out, name)
	}
	return out
}
