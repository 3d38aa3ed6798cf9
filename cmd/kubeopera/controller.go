package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/ochestra-tech/kubeopera/host/controller"
	"github.com/ochestra-tech/kubeopera/host/pipeline"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/repair"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

// Defaults of the controller's throughput flags, sized for a fleet of
// thousands: a HostCluster costs about one status write per phase, and
// validating access waits on the target's API server, so reconciles wait on
// the network far more than on CPU.
const (
	defaultConcurrency     = 16
	defaultManagementQPS   = 200
	defaultManagementBurst = 400
)

type controllerOptions struct {
	db            serve.Config
	pluginDir     string
	leaderElect   bool
	metricsAddr   string
	probeAddr     string
	concurrency   int
	qps           float64
	burst         int
	retryWindow   time.Duration
	pollInterval  time.Duration
	repairEvery   time.Duration
	autoRetries   int
	kubeconfigArg string
	chart         fluxinstall.Chart
	chartCache    string
	gatewayAPI    string
	pullSecret    string
	imageRegistry string
}

func newControllerCommand() *cobra.Command {
	var o controllerOptions
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the host-cluster-controller against the management cluster",
		Long: "Reconcile HostClusters: validate access to connected clusters, provision new ones through the\n" +
			"provider plugins (cloud credentials come from the server's database, opened with the same\n" +
			"encryption key), and clean up on disconnect. The management cluster is --kubeconfig, else\n" +
			"KUBECONFIG, else in-cluster.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runController(cmd, o) },
	}
	serverFlags(cmd, &o.db)
	cmd.Flags().StringVar(&o.kubeconfigArg, "kubeconfig", "", "kubeconfig of the management cluster")
	cmd.Flags().StringVar(&o.pluginDir, "plugin-dir", plugin.DirFromEnv(), "directory of provider plugins (env KUBEOPERA_PLUGIN_DIR)")
	cmd.Flags().BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader so only one replica reconciles")
	cmd.Flags().StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "Prometheus metrics address (0 disables)")
	cmd.Flags().StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "liveness and readiness probe address")
	reconcileFlags(cmd.Flags(), &o)
	return cmd
}

// reconcileFlags are the controller's settings that `kubeopera server
// --with-controller` takes too.
func reconcileFlags(fs *pflag.FlagSet, o *controllerOptions) {
	fs.IntVar(&o.concurrency, "concurrency", defaultConcurrency, "HostClusters reconciled at once (the controller's MaxConcurrentReconciles)")
	fs.Float64Var(&o.qps, "management-qps", defaultManagementQPS, "requests per second the controller may send the management cluster")
	fs.IntVar(&o.burst, "management-burst", defaultManagementBurst, "requests the controller may send the management cluster in a burst above --management-qps")
	fs.DurationVar(&o.retryWindow, "access-retry-window", 5*time.Minute, "how long an unreachable cluster is retried before it is Failed")
	fs.DurationVar(&o.pollInterval, "poll-interval", 10*time.Second, "how often a provisioning operation is polled")
	fs.IntVar(&o.autoRetries, "auto-retries", 3, "how often a provisioning the plugin failed as RETRYABLE is started again before it is Failed (0: never)")
	fs.DurationVar(&o.repairEvery, "repair-interval", time.Minute, "how often cluster rows and HostClusters are repaired after crashes (also at start-up)")
	fs.StringVar(&o.chart.RepoURL, "flux-chart-repo", "", "Helm repository of the Flux chart (default: the fluxcd-community repository)")
	fs.StringVar(&o.chart.Version, "flux-chart-version", "", "version of the flux2 chart (default: the version this release was tested with)")
	fs.StringVar(&o.chartCache, "chart-cache", "data/charts", "directory where Helm charts are cached")
	fs.StringVar(&o.gatewayAPI, "gateway-api-repo", "", "git repository (a mirror holding upstream's tag "+gitops.GatewayAPIVersion+
		") the clusters fetch the Gateway API CRDs from (default: "+gitops.DefaultGatewayAPIRepoURL+")")
	fs.StringVar(&o.pullSecret, "default-pull-secret", "", "Secret in kubeopera-system used for image pulls on clusters without registryPullSecretRef")
	fs.StringVar(&o.imageRegistry, "image-registry", "", "registry of the KubeOpera images the GitOps tree deploys (default ghcr.io/ochestra-tech)")
}

func runController(cmd *cobra.Command, o controllerOptions) error {
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))
	ctx := ctrl.SetupSignalHandler()
	if o.kubeconfigArg != "" {
		// Provider plugins inherit it: their terraform state lives on the
		// management cluster too (KUBEOPERA_STATE_KUBECONFIG overrides).
		if err := os.Setenv("KUBECONFIG", o.kubeconfigArg); err != nil {
			return err
		}
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("management cluster: %w", err)
	}
	say := func(format string, args ...any) { fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", args...) }
	return reconcileHostClusters(ctx, cfg, o, say)
}

// reconcileHostClusters opens what the controller needs (the server's
// database and key, the provider plugins) and reconciles HostClusters on
// the management cluster of cfg until ctx ends. `kubeopera controller`,
// `kubeopera server --with-controller` and `kubeopera dev` run it.
func reconcileHostClusters(ctx context.Context, cfg *rest.Config, o controllerOptions, say func(string, ...any)) error {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	st, err := serve.OpenStore(ctx, o.db)
	if err != nil {
		return err
	}
	defer st.Close()
	keys, err := serve.LoadKeys(ctx, o.db, st, say)
	if err != nil {
		return err
	}
	host, err := plugin.Open(ctx, plugin.Options{Dir: o.pluginDir})
	if err != nil {
		return fmt.Errorf("provider plugins: %w", err)
	}
	defer host.Close()
	mgr, err := newControllerManager(cfg, o, credresolve.Resolver{Store: st, Keyring: keys}, host)
	if err != nil {
		return err
	}
	// Rows and HostClusters repaired after crashes (server/repair).
	if err := mgr.Add(&repair.Sweeper{Store: st, Reader: mgr.GetAPIReader(), Log: slog.Default(), Every: o.repairEvery}); err != nil {
		return err
	}
	say("host-cluster-controller starting (plugins: %d from %s)", len(host.Plugins()), o.pluginDir)
	return mgr.Start(ctx)
}

// newControllerManager wires the reconciler and the pipeline into a
// controller manager.
func newControllerManager(cfg *rest.Config, o controllerOptions, creds credresolve.Resolver, host *plugin.Host) (manager.Manager, error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: controllerScheme(), Cache: controller.Cache(),
		LeaderElection: o.leaderElect, LeaderElectionID: "host-cluster-controller.kubeopera.io",
		LeaderElectionNamespace: "kubeopera-system",
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr}, HealthProbeBindAddress: o.probeAddr})
	if err != nil {
		return nil, fmt.Errorf("controller manager: %w", err)
	}
	r := &controller.Reconciler{Providers: controller.HostProviders(host), Credentials: creds,
		AccessRetryWindow: o.retryWindow, PollInterval: o.pollInterval, AutoRetries: &o.autoRetries,
		Pipeline: pipeline.New(pipeline.Options{Management: mgr.GetClient(), Reader: mgr.GetAPIReader(), Chart: o.chart, ChartCache: o.chartCache,
			GatewayAPIRepoURL: o.gatewayAPI,
			DefaultPullSecret: o.pullSecret, ImageRegistry: o.imageRegistry, Version: version})}
	if err := r.SetupWithManager(mgr, o.concurrency); err != nil {
		return nil, err
	}
	_ = mgr.AddHealthzCheck("ping", healthz.Ping)
	_ = mgr.AddReadyzCheck("ping", healthz.Ping)
	return mgr, nil
}
