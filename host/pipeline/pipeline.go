// Package pipeline is the shared pipeline every onboarded cluster converges
// on, connected or provisioned: install Flux with its Helm chart, generate
// and push the cluster's GitOps tree, point Flux at it, wait until Flux has
// applied KubeOpera, create the first admin. The controller calls Run on
// every reconcile; each step records a condition on the HostCluster, so a
// restarted controller resumes where the last one stopped and a finished
// step is not redone until the spec changes.
package pipeline

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// Options configure the pipeline.
type Options struct {
	// Management reaches the host cluster: the HostClusters' git and pull
	// Secrets are read there and the admin password Secret written there.
	Management client.Client
	// Reader reads the admin password Secret past any cache (a manager's
	// APIReader), so a reconcile never acts on a stale admin state;
	// Management when nil.
	Reader client.Reader
	// Chart is the Flux Helm chart (fluxinstall's defaults when empty);
	// ChartCache is where charts are cached.
	Chart      fluxinstall.Chart
	ChartCache string
	// GatewayAPIRepoURL is the git repository every tree fetches the
	// Gateway API CRDs from (gitops.DefaultGatewayAPIRepoURL when empty):
	// a mirror for clusters that cannot reach GitHub.
	GatewayAPIRepoURL string
	// DefaultPullSecret names a Secret in the HostClusters' namespace used
	// for image pulls when a cluster has no registryPullSecretRef ("" for
	// none).
	DefaultPullSecret string
	// ImageRegistry and Version are the KubeOpera images the tree deploys
	// (gitops' default registry; tag "latest" when empty).
	ImageRegistry, Version string
	// FluxTimeout bounds the wait for Flux's controllers (5 minutes);
	// ApplyTimeout the wait for Flux to apply the tree (15 minutes).
	FluxTimeout, ApplyTimeout time.Duration
	// AdminTimeout bounds the retries of the first-admin call (10 minutes).
	AdminTimeout time.Duration
	// AdminURL is the base URL of the KubeOpera installed on a cluster;
	// when nil it is reached through the cluster's API server (its
	// service proxy to the server's Service), with the cluster's kubeconfig.
	AdminURL func(hc *v1.HostCluster) string
	// HTTPClient calls the installed KubeOpera at AdminURL
	// (http.DefaultClient when nil).
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Pipeline runs the shared steps. It is safe for concurrent use.
type Pipeline struct {
	o      Options
	scheme *runtime.Scheme
	// installed remembers the Flux installs of this process by cluster UID
	// and generation: a reconcile that reads the HostCluster from a cache
	// a moment behind would otherwise upgrade the release again.
	installed sync.Map
	// targets keeps one connection per cluster while its kubeconfig stays
	// the same, so a reconcile every poll interval does not open a new TLS
	// connection (and rebuild a REST mapper) each time.
	targets sync.Map // namespace/name -> cachedTarget
	// verdicts keeps what the repository said about a revision Flux
	// applied, where it cannot change (see holds), so a cluster waiting on
	// Flux does not fetch the branch's history on every poll.
	verdicts sync.Map // namespace/name/pushed/revision -> gitrepo.Verdict
}

type cachedTarget struct {
	sum [sha256.Size]byte
	t   *target
}

// New fills in o's defaults.
func New(o Options) *Pipeline {
	if o.FluxTimeout == 0 {
		o.FluxTimeout = 5 * time.Minute
	}
	if o.AdminTimeout == 0 {
		o.AdminTimeout = 10 * time.Minute
	}
	if o.ApplyTimeout == 0 {
		o.ApplyTimeout = 15 * time.Minute
	}
	if o.Version == "" {
		o.Version = "latest"
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Reader == nil {
		o.Reader = o.Management
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = fluxsync.AddToScheme(s)
	_ = gatewayv1.Install(s)
	return &Pipeline{o: o, scheme: s}
}

// target is one Run's connection to the cluster being onboarded.
type target struct {
	config    *rest.Config
	client    client.Client
	clientset kubernetes.Interface
}

// A step returns nil when it is done, or what step.Report records: a
// *step.Waiting (progress or a transient error), a *step.Stalled (the
// user must act) or another error (transient). It records its condition;
// the phase is derived from the conditions.
type stepFunc func(ctx context.Context, hc *v1.HostCluster, t *target) error

// Run takes the cluster as far as it can go now. It returns the message of
// a Ready cluster, or the first unfinished step's error: *step.Waiting,
// *step.Stalled or a transient error, for step.Report.
func (p *Pipeline) Run(ctx context.Context, hc *v1.HostCluster, kubeconfig []byte) (string, error) {
	t, err := p.target(hc, kubeconfig)
	if err != nil {
		return "", step.Stall(v1.ReasonInvalidKubeconfig, "kubeconfig: %v; store a working kubeconfig for the cluster", err)
	}
	for _, s := range []stepFunc{p.bootstrapFlux, p.pushTree, p.installKubeOpera, p.createAdmin} {
		if err := s(ctx, hc, t); err != nil {
			return "", err
		}
	}
	msg := readyMessage(hc) + "; " + p.dnsAdvice(ctx, hc, t)
	if advice := impersonateAdvice(ctx, t.clientset); advice != "" {
		msg += "; " + advice
	}
	return msg, nil
}

// target returns the connection to hc's cluster, reusing the last one
// while the kubeconfig is unchanged (a refreshed one replaces it).
func (p *Pipeline) target(hc *v1.HostCluster, kubeconfig []byte) (*target, error) {
	key, sum := hc.Namespace+"/"+hc.Name, sha256.Sum256(kubeconfig)
	if c, ok := p.targets.Load(key); ok && c.(cachedTarget).sum == sum {
		return c.(cachedTarget).t, nil
	}
	t, err := p.connect(kubeconfig)
	if err != nil {
		return nil, err
	}
	p.targets.Store(key, cachedTarget{sum: sum, t: t})
	return t, nil
}

// Forget drops what the pipeline keeps for a cluster that is being deleted:
// its connection and the Flux installs it remembers.
func (p *Pipeline) Forget(hc *v1.HostCluster) {
	key := hc.Namespace + "/" + hc.Name
	p.targets.Delete(key)
	for _, m := range []*sync.Map{&p.installed, &p.verdicts} {
		m.Range(func(k, _ any) bool {
			if strings.HasPrefix(k.(string), key+"/") {
				m.Delete(k)
			}
			return true
		})
	}
}

func (p *Pipeline) connect(kubeconfig []byte) (*target, error) {
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: p.scheme})
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &target{config: cfg, client: c, clientset: cs}, nil
}

// readyMessage sums up a finished pipeline for status.message.
func readyMessage(hc *v1.HostCluster) string {
	msg := "KubeOpera installed by Flux at " + short(hc.Status.GitOpsRevision)
	if c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAdminCreated); c != nil {
		msg += "; " + c.Message
	}
	return msg
}

// doneFor reports whether condition typ is True for the current spec.
func doneFor(hc *v1.HostCluster, typ string) bool {
	c := meta.FindStatusCondition(hc.Status.Conditions, typ)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == hc.Generation
}

// since is how long condition typ has had its status (0 when absent).
func since(hc *v1.HostCluster, typ string) time.Duration {
	if c := meta.FindStatusCondition(hc.Status.Conditions, typ); c != nil {
		return time.Since(c.LastTransitionTime.Time)
	}
	return 0
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func metaCondition(hc *v1.HostCluster, typ string) *metav1.Condition {
	return meta.FindStatusCondition(hc.Status.Conditions, typ)
}
