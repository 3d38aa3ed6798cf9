package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/fleet"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"github.com/ochestra-tech/kubeopera/server/livecache"
	"github.com/ochestra-tech/kubeopera/server/store"
	"github.com/ochestra-tech/kubeopera/server/web"
)

// Run runs the server until ctx ends, then shuts down gracefully: requests
// in flight finish (up to 10s), plugins stop, the database closes. ready, if
// not nil, receives the listening address. Logs go to logOut as JSON; what
// an operator must read goes to out.
func Run(ctx context.Context, c Config, out, logOut io.Writer, ready chan<- string) error {
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	proxies, err := ParseTrustedProxies(c.TrustedProxies)
	if err != nil {
		return err
	}
	if err := c.Defaults.Check(); err != nil {
		return fmt.Errorf("platform defaults: %w", err)
	}
	sso, err := c.SSO.Provider()
	if err != nil {
		return err
	}
	st, err := OpenStore(ctx, c)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := LoadKeys(ctx, c, st, say)
	if err != nil {
		return err
	}
	if err := api.RecordCredentialSources(ctx, st, keys, log); err != nil {
		return fmt.Errorf("record the sources of stored credentials: %w", err)
	}
	if err := EnsureAdminToken(ctx, c, st, say); err != nil {
		return err
	}
	setupSecret, err := EnsureSetupSecret(ctx, c, st, keys, say)
	if err != nil {
		return err
	}
	providers, err := plugin.Open(ctx, plugin.Options{Dir: c.PluginDir})
	if err != nil {
		return fmt.Errorf("provider plugins: %w", err)
	}
	defer providers.Close()
	registry, err := managementRegistry(ctx, c.ManagementKubeconfig)
	if err != nil {
		return err
	}
	if _, none := registry.(hostclusters.Unconfigured); none {
		say("no management cluster configured (--kubeconfig): connect and provision answer 503 until one is")
	}
	selfCfg, err := restConfig(c.SelfKubeconfig)
	if err != nil {
		return fmt.Errorf("self-registration cluster: %w", err)
	}
	inspector, err := selfInspector(selfCfg)
	if err != nil {
		return err
	}
	fleetSrc, overview, err := fleetSetup(c, st, registry, selfCfg)
	if err != nil {
		return err
	}
	usage := api.NewTokenUsage(st)
	usageDone := make(chan struct{})
	usageCtx, stopUsage := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		defer close(usageDone)
		usage.Run(usageCtx, tokenUsageFlush, func(err error) { log.Warn("recording token use", "reason", err) })
	}()
	// Last uses are flushed after the server stops, before the database
	// closes.
	defer func() { stopUsage(); <-usageDone }()
	px, stopProxy := startProxy(ctx, st, usage, fleetSrc, log)
	defer stopProxy() // read counts are flushed before the database closes
	proxyCA, err := proxyCA(c)
	if err != nil {
		return err
	}
	app := api.New(api.Deps{TokenUsage: usage, ProxyCA: proxyCA, Store: st, Keyring: keys, Providers: providers, Registry: registry, Inspector: inspector,
		Logger: log, Fleet: fleetSrc, Overview: overview, SetupSecret: setupSecret,
		SetupDone: func(ctx context.Context) { RemoveSetupSecret(ctx, st, c.setupSecretFile(), say) },
		Web:       web.Dist(), TrustedProxies: proxies,
		AllowUnsafeKubeconfigs: c.AllowUnsafeKubeconfigs, PublicMetrics: c.PublicMetrics, Defaults: c.Defaults,
		SSO: sso, PasswordsOff: c.SSO.PasswordsOff})
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Listen, err)
	}
	scheme := "http"
	if c.TLSCertFile != "" || c.TLSKeyFile != "" {
		if c.TLSCertFile == "" || c.TLSKeyFile == "" {
			ln.Close()
			return fmt.Errorf("TLS needs both --tls-cert-file and --tls-key-file")
		}
		if ln, err = tlsListener(ln, c.TLSCertFile, c.TLSKeyFile); err != nil {
			return err
		}
		scheme = "https"
	}
	say("KubeOpera API listening on "+scheme+"://%s (database: %s, plugins: %d from %s)", ln.Addr(), st.Dialect(), len(providers.Plugins()), c.PluginDir)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	return serveFront(ctx, ln, app, px, func() { say("shutting down") })
}

// tokenUsageFlush is how often token uses are written (last_used_at).
const tokenUsageFlush = 30 * time.Second

// restConfig loads a kubeconfig file, or the in-cluster ServiceAccount when
// path is empty and the process runs in a cluster; nil when neither. The
// client gets the server's rate limits, not client-go's 5 requests/s.
func restConfig(path string) (*rest.Config, error) {
	var (
		cfg *rest.Config
		err error
	)
	switch {
	case path != "":
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
	case os.Getenv("KUBERNETES_SERVICE_HOST") == "":
		return nil, nil
	default:
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, err
	}
	return kubeconfig.Tune(cfg), nil
}

// managementRegistry connects to the management cluster, if any, and starts
// the HostCluster cache, which lives as long as runCtx.
func managementRegistry(runCtx context.Context, kubeconfig string) (hostclusters.Registry, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil || cfg == nil {
		if err != nil {
			return nil, fmt.Errorf("management cluster: %w", err)
		}
		return hostclusters.Unconfigured{}, nil
	}
	reg, err := hostclusters.NewKube(cfg)
	if err != nil {
		return nil, err
	}
	reg.Finalize = true // the controller runs beside the server
	ctx, cancel := context.WithTimeout(runCtx, 15*time.Second)
	defer cancel()
	if err := reg.EnsureNamespace(ctx); err != nil {
		return nil, fmt.Errorf("management cluster: %w", err)
	}
	if err := reg.StartCache(runCtx); err != nil {
		return nil, fmt.Errorf("management cluster: %w", err)
	}
	return reg, nil
}

func selfInspector(cfg *rest.Config) (api.Inspector, error) {
	if cfg == nil {
		return nil, nil
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("self-registration cluster: %w", err)
	}
	return inspect.NewCached(inspect.Inspector{Client: cs}, livecache.DefaultTTL), nil
}

// fleetSetup decides what the overview asks: stored kubeconfigs on the
// management cluster, the server's own cluster, and CLUSTER_REGISTRY
// entries; nil when there is nothing it could ask. KUBEOPERA_PRICING_FILE
// replaces the shipped pricing table.
func fleetSetup(c Config, st *store.Store, reg hostclusters.Registry, self *rest.Config) (api.Fleet, federation.Options, error) {
	opts := federation.Options{Timeout: federation.DefaultTimeout, Assess: fleet.Assess, Pricing: federation.DefaultPricing(),
		Concurrency: c.OverviewConcurrency, CacheTTL: c.OverviewCacheTTL}
	if path, ok := c.Getenv("KUBEOPERA_PRICING_FILE"); ok && path != "" {
		p, err := federation.LoadPricing(path)
		if err != nil {
			return nil, opts, err
		}
		opts.Pricing = p
	}
	registryEnv, _ := c.Getenv("CLUSTER_REGISTRY")
	entries, err := fleet.ParseRegistry(registryEnv)
	if err != nil {
		return nil, opts, err
	}
	src := fleet.Source{Store: st, Self: self, Registry: entries}
	if kube, ok := reg.(*hostclusters.Kube); ok {
		src.Stored = kube
	}
	if src.Stored == nil && self == nil && len(entries) == 0 {
		return nil, opts, nil
	}
	return src, opts, nil
}
