package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/host/plugin"
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
	var c serve.Config
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the KubeOpera REST API",
		Long: "Run the REST API the dashboard uses. With no flags it keeps everything in ./data on SQLite,\n" +
			"creates the first platform-admin token if there is none and says where it is, and listens on\n" +
			"127.0.0.1:8080. SIGINT or SIGTERM shut it down gracefully.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve.Run(ctx, c, cmd.OutOrStdout(), cmd.ErrOrStderr(), nil)
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
	return cmd
}
