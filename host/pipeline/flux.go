package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// FluxRelease is the Helm release name of Flux on every target.
const FluxRelease = "flux"

// gitSecretName is the git credentials Secret Flux reads on the target.
func gitSecretName(clusterID string) string { return "kubeopera-" + clusterID + "-git" }

// bootstrapFlux installs or upgrades the Flux chart once per spec
// generation, with the git credentials and image pull Secrets it needs, then
// waits for every Flux controller to be available. Past FluxTimeout it
// stalls naming the controllers that are not ready and why.
func (p *Pipeline) bootstrapFlux(ctx context.Context, hc *v1.HostCluster, t *target) error {
	key := fmt.Sprintf("%s/%s/%s/%d", hc.Namespace, hc.Name, hc.UID, hc.Generation)
	if msg, ok := p.installed.Load(key); ok && !doneFor(hc, v1.ConditionFluxInstalled) {
		hc.SetCondition(v1.ConditionFluxInstalled, metav1.ConditionTrue, v1.ReasonInstalled, msg.(string))
	}
	if !doneFor(hc, v1.ConditionFluxInstalled) {
		if err := p.installFlux(ctx, hc, t); err != nil {
			return err
		}
		p.installed.Store(key, metaCondition(hc, v1.ConditionFluxInstalled).Message)
	}
	report, err := fluxinstall.Health(ctx, t.clientset, fluxsync.Namespace)
	if err != nil {
		return step.Retry(0, "checking the Flux controllers: %v", err)
	}
	hc.Status.FluxHealthy = report.Ready
	if report.Ready {
		hc.SetCondition(v1.ConditionFluxReady, metav1.ConditionTrue, v1.ReasonControllersAvailable, "every Flux controller is available")
		return nil
	}
	notReady := strings.Join(report.NotReady, "; ")
	hc.SetCondition(v1.ConditionFluxReady, metav1.ConditionFalse, v1.ReasonControllersNotAvailable, notReady)
	if waited := since(hc, v1.ConditionFluxInstalled); waited > p.o.FluxTimeout {
		return step.Stall(v1.ReasonFluxUnavailable, "Flux controllers not ready %s after install: %s; fix them on the cluster, "+
			"then change the HostCluster's spec to try again", waited.Round(time.Second), notReady)
	}
	return step.Wait(0, "waiting for the Flux controllers: %s", notReady)
}

func (p *Pipeline) installFlux(ctx context.Context, hc *v1.HostCluster, t *target) error {
	if err := ensureNamespaces(ctx, t.client, fluxsync.Namespace, gitops.NamespaceSystem); err != nil {
		return err
	}
	if ref := hc.Spec.GitCredentialsSecretRef; ref != "" {
		if err := p.copySecret(ctx, hc, t, ref, fluxsync.Namespace, gitSecretName(hc.Name)); err != nil {
			return err
		}
	}
	pull := p.pullSecret(hc)
	if pull != "" {
		for _, ns := range []string{fluxsync.Namespace, gitops.NamespaceSystem} {
			if err := p.copySecret(ctx, hc, t, pull, ns, pull); err != nil {
				return err
			}
		}
	}
	rel, err := fluxinstall.Install(ctx, t.config, fluxinstall.Options{Chart: p.o.Chart, Namespace: fluxsync.Namespace,
		ReleaseName: FluxRelease, ImagePullSecret: pull, CacheDir: p.o.ChartCache, Logger: p.o.Logger})
	var repoErr *fluxinstall.RepositoryError
	var chartErr *fluxinstall.ChartNotFoundError
	switch {
	case errors.As(err, &repoErr), errors.As(err, &chartErr):
		return step.Stall(v1.ReasonFluxInstallFailed, "installing Flux: %v", err)
	case err != nil:
		return step.Stall(v1.ReasonFluxInstallFailed, "installing Flux with Helm: %v", err)
	}
	hc.SetCondition(v1.ConditionFluxInstalled, metav1.ConditionTrue, v1.ReasonInstalled,
		fmt.Sprintf("Helm release %s/%s revision %d (chart %s)", rel.Namespace, rel.Name, rel.Revision, rel.ChartVersion))
	return nil
}

// pullSecret is the Secret for image pulls: the cluster's own replaces the
// platform default.
func (p *Pipeline) pullSecret(hc *v1.HostCluster) string {
	if hc.Spec.RegistryPullSecretRef != "" {
		return hc.Spec.RegistryPullSecretRef
	}
	return p.o.DefaultPullSecret
}
