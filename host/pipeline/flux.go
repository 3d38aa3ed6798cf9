package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

// FluxRelease is the Helm release name of Flux on every target.
const FluxRelease = "flux"

// gitSecretName is the git credentials Secret Flux reads on the target.
func gitSecretName(clusterID string) string { return "kubeopera-" + clusterID + "-git" }

// bootstrapFlux installs or upgrades the Flux chart once per spec
// generation, with the git credentials and image pull Secrets it needs, then
// waits for every Flux controller to be available. Past FluxTimeout it fails
// naming the controllers that are not ready and why.
func (p *Pipeline) bootstrapFlux(ctx context.Context, hc *v1.HostCluster, t *target) (outcome, error) {
	key := fmt.Sprintf("%s/%s/%s/%d", hc.Namespace, hc.Name, hc.UID, hc.Generation)
	if msg, ok := p.installed.Load(key); ok && !doneFor(hc, v1.ConditionFluxInstalled) {
		setCondition(hc, v1.ConditionFluxInstalled, metav1.ConditionTrue, v1.ReasonInstalled, msg.(string))
	}
	if !doneFor(hc, v1.ConditionFluxInstalled) {
		if out, err := p.installFlux(ctx, hc, t); err != nil || !out.done {
			return out, err
		}
		p.installed.Store(key, metaCondition(hc, v1.ConditionFluxInstalled).Message)
	}
	report, err := fluxinstall.Health(ctx, t.clientset, fluxsync.Namespace)
	if err != nil {
		return waiting(v1.PhaseBootstrappingFlux, "checking the Flux controllers: %v", err), nil
	}
	hc.Status.FluxHealthy = report.Ready
	if report.Ready {
		setCondition(hc, v1.ConditionFluxReady, metav1.ConditionTrue, v1.ReasonControllersAvailable, "every Flux controller is available")
		return outcome{done: true}, nil
	}
	notReady := strings.Join(report.NotReady, "; ")
	setCondition(hc, v1.ConditionFluxReady, metav1.ConditionFalse, v1.ReasonControllersNotAvailable, notReady)
	if waited := since(hc, v1.ConditionFluxInstalled); waited > p.o.FluxTimeout {
		return failed("Flux controllers not ready %s after install: %s", waited.Round(1e9), notReady), nil
	}
	return waiting(v1.PhaseBootstrappingFlux, "waiting for the Flux controllers: %s", notReady), nil
}

func (p *Pipeline) installFlux(ctx context.Context, hc *v1.HostCluster, t *target) (outcome, error) {
	if err := ensureNamespaces(ctx, t.client, fluxsync.Namespace, gitops.NamespaceSystem); err != nil {
		return outcome{phase: v1.PhaseBootstrappingFlux}, err
	}
	if ref := hc.Spec.GitCredentialsSecretRef; ref != "" {
		if out, err := p.copySecret(ctx, hc, t, ref, fluxsync.Namespace, gitSecretName(hc.Name)); err != nil || !out.done {
			return out, err
		}
	}
	pull := p.pullSecret(hc)
	if pull != "" {
		for _, ns := range []string{fluxsync.Namespace, gitops.NamespaceSystem} {
			if out, err := p.copySecret(ctx, hc, t, pull, ns, pull); err != nil || !out.done {
				return out, err
			}
		}
	}
	rel, err := fluxinstall.Install(ctx, t.config, fluxinstall.Options{Chart: p.o.Chart, Namespace: fluxsync.Namespace,
		ReleaseName: FluxRelease, ImagePullSecret: pull, CacheDir: p.o.ChartCache, Logger: p.o.Logger})
	var repoErr *fluxinstall.RepositoryError
	var chartErr *fluxinstall.ChartNotFoundError
	switch {
	case errors.As(err, &repoErr), errors.As(err, &chartErr):
		return failed("installing Flux: %v", err), nil
	case err != nil:
		return failed("installing Flux with Helm: %v", err), nil
	}
	setCondition(hc, v1.ConditionFluxInstalled, metav1.ConditionTrue, v1.ReasonInstalled,
		fmt.Sprintf("Helm release %s/%s revision %d (chart %s)", rel.Namespace, rel.Name, rel.Revision, rel.ChartVersion))
	return outcome{done: true}, nil
}

// pullSecret is the Secret for image pulls: the cluster's own replaces the
// platform default.
func (p *Pipeline) pullSecret(hc *v1.HostCluster) string {
	if hc.Spec.RegistryPullSecretRef != "" {
		return hc.Spec.RegistryPullSecretRef
	}
	return p.o.DefaultPullSecret
}
