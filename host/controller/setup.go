package controller

import (
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// The management cluster client's rate limits: each HostCluster costs a
// few writes per phase, so client-go's defaults (5 QPS) would make a fleet
// of hundreds crawl.
const (
	ManagementQPS   = 50
	ManagementBurst = 100
)

// SetupWithManager fills defaults and registers the reconciler. Events are
// recorded as "host-cluster-controller".
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, concurrency int) error {
	if r.AccessRetryWindow == 0 {
		r.AccessRetryWindow = 5 * time.Minute
	}
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	if r.PollInterval == 0 {
		r.PollInterval = 10 * time.Second
	}
	if r.RefreshBefore == 0 {
		r.RefreshBefore = defaultRefreshBefore
	}
	if r.InventoryInterval == 0 {
		r.InventoryInterval = defaultInventoryInterval
	}
	if r.CleanupTimeout == 0 {
		r.CleanupTimeout = cleanupDeadline
	}
	if r.Recorder == nil {
		// core/v1 Events: what `kubectl describe hostcluster` and the
		// tests read; the events.k8s.io recorder is a separate move.
		r.Recorder = mgr.GetEventRecorderFor("host-cluster-controller") //nolint:staticcheck // SA1019, see above

	}
	if r.Client == nil {
		r.Client = mgr.GetClient()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1.HostCluster{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: max(concurrency, 1)}).
		Named("hostcluster").
		Complete(r)
}

// HostProviders adapts the plugin host to Providers.
func HostProviders(h *plugin.Host) Providers { return hostProviders{h} }

type hostProviders struct{ h *plugin.Host }

func (p hostProviders) Provider(name string) (sdk.Provider, error) { return p.h.Provider(name) }
