package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// serverFlags are shared by the commands that open the server's database.
func serverFlags(cmd *cobra.Command, c *serve.Config) {
	cmd.Flags().StringVar(&c.DataDir, "data-dir", envOr("KUBEOPERA_DATA_DIR", "data"), "directory for the SQLite database, generated key and first admin token (env KUBEOPERA_DATA_DIR)")
	cmd.Flags().StringVar(&c.Database, "database", os.Getenv("KUBEOPERA_DATABASE_URL"), "postgres:// URL, or a SQLite file path; default <data-dir>/kubeopera.db (env KUBEOPERA_DATABASE_URL)")
	c.Getenv = os.LookupEnv
	c.Pool = store.DefaultPool
	cmd.Flags().IntVar(&c.Pool.MaxOpen, "db-max-open-conns", c.Pool.MaxOpen, "PostgreSQL: most connections open at once (0: no limit)")
	cmd.Flags().IntVar(&c.Pool.MaxIdle, "db-max-idle-conns", c.Pool.MaxIdle, "PostgreSQL: connections kept open for reuse")
	cmd.Flags().DurationVar(&c.Pool.MaxLifetime, "db-conn-max-lifetime", c.Pool.MaxLifetime, "PostgreSQL: close a connection this long after it opened (0: never)")
	cmd.Flags().DurationVar(&c.Pool.MaxIdleTime, "db-conn-max-idle-time", c.Pool.MaxIdleTime, "PostgreSQL: close a connection unused this long (0: never)")
}

func newServerCommand() *cobra.Command {
	var (
		c              serve.Config
		withController bool
		o              controllerOptions
	)
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the KubeOpera REST API",
		Long: "Run the REST API the dashboard uses. With no flags it keeps everything in ./data on SQLite,\n" +
			"creates the first platform-admin token if there is none and says where it is, and listens on\n" +
			"127.0.0.1:8080. SIGINT or SIGTERM shut it down gracefully. --with-controller also runs the\n" +
			"host-cluster-controller in this process against the management cluster (--kubeconfig, else\n" +
			"in-cluster); with a PostgreSQL database it elects a leader, so replicas may share it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if !withController {
				return serve.Run(ctx, c, cmd.OutOrStdout(), cmd.ErrOrStderr(), nil)
			}
			o.db, o.pluginDir, o.metricsAddr, o.probeAddr = c, c.PluginDir, "0", "0"
			if !cmd.Flags().Changed("leader-elect") {
				// Replicas on one PostgreSQL each run a controller: only
				// the one holding the lease may reconcile.
				o.leaderElect = c.SharedDatabase()
			}
			return serveWithController(ctx, c, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	serverFlags(cmd, &c)
	cmd.Flags().StringVar(&c.TLSCertFile, "tls-cert-file", os.Getenv("KUBEOPERA_TLS_CERT_FILE"), "serve HTTPS with this PEM certificate (chain), reloaded when it changes (env KUBEOPERA_TLS_CERT_FILE)")
	cmd.Flags().StringVar(&c.TLSKeyFile, "tls-key-file", os.Getenv("KUBEOPERA_TLS_KEY_FILE"), "the certificate's PEM private key (env KUBEOPERA_TLS_KEY_FILE)")
	cmd.Flags().StringVar(&c.Listen, "listen", envOr("KUBEOPERA_LISTEN", "127.0.0.1:8080"), "address to listen on (env KUBEOPERA_LISTEN)")
	cmd.Flags().StringVar(&c.PluginDir, "plugin-dir", plugin.DirFromEnv(), "directory of provider plugins (env KUBEOPERA_PLUGIN_DIR)")
	cmd.Flags().StringVar(&c.ManagementKubeconfig, "kubeconfig", os.Getenv("KUBEOPERA_MANAGEMENT_KUBECONFIG"), "kubeconfig of the management cluster that runs the controller; default in-cluster when in a cluster")
	cmd.Flags().StringVar(&c.SelfKubeconfig, "self-kubeconfig", os.Getenv("KUBEOPERA_SELF_KUBECONFIG"), "kubeconfig of the cluster this server runs in, for self-registration; default in-cluster")
	cmd.Flags().IntVar(&c.OverviewConcurrency, "overview-concurrency", federation.DefaultConcurrency, "clusters the multi-cluster overview asks at once")
	cmd.Flags().DurationVar(&c.OverviewCacheTTL, "overview-cache-ttl", federation.DefaultCacheTTL, "how long viewers of the overview share one result (negative: only concurrent viewers share)")
	cmd.Flags().StringSliceVar(&c.TrustedProxies, "trusted-proxy", envList("KUBEOPERA_TRUSTED_PROXIES"),
		"IP address or CIDR of a proxy in front of the server whose X-Forwarded-For and X-Forwarded-Proto are believed; repeatable (env KUBEOPERA_TRUSTED_PROXIES, comma-separated)")
	cmd.Flags().BoolVar(&c.AllowUnsafeKubeconfigs, "allow-unsafe-kubeconfigs", os.Getenv("KUBEOPERA_ALLOW_UNSAFE_KUBECONFIGS") == "true",
		"let connect take kubeconfigs with insecure-skip-tls-verify, proxy-url, a link-local server or user information in the server URL (env KUBEOPERA_ALLOW_UNSAFE_KUBECONFIGS=true)")
	cmd.Flags().BoolVar(&c.PublicMetrics, "public-metrics", os.Getenv("KUBEOPERA_PUBLIC_METRICS") == "true",
		"serve /metrics without a token (default: a viewer's token is needed; env KUBEOPERA_PUBLIC_METRICS=true)")
	defaultFlags(cmd, &c.Defaults)
	ssoFlags(cmd, &c.SSO)
	cmd.Flags().BoolVar(&withController, "with-controller", false, "also run the host-cluster-controller in this process")
	cmd.Flags().BoolVar(&o.leaderElect, "leader-elect", false, "with --with-controller: elect a leader so only one replica reconciles (default: on with a PostgreSQL --database, off with SQLite)")
	reconcileFlags(cmd.Flags(), &o)
	return cmd
}

// serveWithController runs the server and the controller against the
// management cluster of c.
func serveWithController(ctx context.Context, c serve.Config, o controllerOptions, out, logOut io.Writer) error {
	cfg, err := managementConfig(c.ManagementKubeconfig)
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.WriteTo(logOut)))
	return serveWithControllerOn(ctx, cfg, c, o, out, logOut, nil)
}

// serveWithControllerOn runs the server and, once it has opened the
// database (and made the encryption key at a first start), the controller
// against cfg, until ctx ends or either fails; then both stop. ready, when
// set, gets the server's address once it listens.
func serveWithControllerOn(ctx context.Context, cfg *rest.Config, c serve.Config, o controllerOptions, out, logOut io.Writer,
	ready func(addr string)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	listening, served := make(chan string, 1), make(chan error, 1)
	go func() { served <- serve.Run(ctx, c, out, logOut, listening) }()
	var addr string
	select {
	case addr = <-listening:
	case err := <-served:
		return err
	}
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	reconciled := make(chan error, 1)
	go func() { reconciled <- reconcileHostClusters(ctx, cfg, o, say) }()
	if ready != nil {
		ready(addr)
	}
	var errs []error
	select {
	case err := <-reconciled:
		errs = append(errs, err)
		cancel()
		errs = append(errs, <-served)
	case err := <-served:
		errs = append(errs, err)
		cancel()
		errs = append(errs, <-reconciled)
	}
	return errors.Join(errs...)
}

// defaultFlags are the platform defaults connect and provision apply to
// what a request leaves out.
func defaultFlags(cmd *cobra.Command, d *api.PipelineDefaults) {
	cmd.Flags().StringVar(&d.GitOpsRepoURL, "default-gitops-repo-url", os.Getenv("KUBEOPERA_DEFAULT_GITOPS_REPO_URL"),
		"GitOps repository of a cluster whose request names none (env KUBEOPERA_DEFAULT_GITOPS_REPO_URL)")
	cmd.Flags().StringVar(&d.GitOpsPath, "default-gitops-path", os.Getenv("KUBEOPERA_DEFAULT_GITOPS_PATH"),
		"path in the repository of a cluster whose request names none; {name} is the cluster's name, e.g. clusters/{name} (env KUBEOPERA_DEFAULT_GITOPS_PATH)")
	cmd.Flags().StringVar(&d.Domain, "default-domain", os.Getenv("KUBEOPERA_DEFAULT_DOMAIN"),
		"domain of a cluster whose request names none; {name} is the cluster's name, e.g. {name}.apps.example.com (env KUBEOPERA_DEFAULT_DOMAIN)")
	cmd.Flags().StringVar(&d.GitCredentialsSecretRef, "default-git-credentials-secret", os.Getenv("KUBEOPERA_DEFAULT_GIT_CREDENTIALS_SECRET"),
		"Secret with the credentials of the default GitOps repository, used with that repository only (env KUBEOPERA_DEFAULT_GIT_CREDENTIALS_SECRET)")
}

// managementConfig is the management cluster of --kubeconfig, else the
// in-cluster ServiceAccount.
func managementConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") == "" {
		return nil, fmt.Errorf("--with-controller needs a management cluster: pass --kubeconfig (or KUBEOPERA_MANAGEMENT_KUBECONFIG), or run in a cluster")
	}
	return rest.InClusterConfig()
}
