package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/devenv"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

func newDevCommand() *cobra.Command {
	var (
		d         devOptions
		pluginDir string
	)
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the whole platform on this machine until interrupted",
		Long: "Start a management sandbox (real kube-apiserver from bin/k8s, built by 'make testbin'), the\n" +
			"server, the controller, a local git server, Flux chart repository and mirror of the Gateway API\n" +
			"CRDs (from its Go module), Flux's controllers for\n" +
			"every onboarded cluster, and the provider plugins of --plugin-dir (the local provider makes\n" +
			"development clusters on this machine). Prints the URL and how to sign in. Ctrl-C tears down\n" +
			"every cluster a plugin provisioned through that plugin's Destroy (a second Ctrl-C stops\n" +
			"waiting), then stops everything and removes every file it made.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			d.controller.pluginDir = pluginDir
			return runDev(ctx, d, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&d.listen, "listen", "127.0.0.1:8080", "address the server listens on")
	cmd.Flags().StringVar(&pluginDir, "plugin-dir", plugin.DirFromEnv(), "directory of provider plugins (env KUBEOPERA_PLUGIN_DIR)")
	cmd.Flags().StringVar(&d.kubeconfigOut, "kubeconfig-out", "", "also write the management sandbox's admin kubeconfig here (removed on exit)")
	cmd.Flags().DurationVar(&d.controller.pollInterval, "poll-interval", 2*time.Second, "how often a provisioning operation is polled")
	cmd.Flags().IntVar(&d.controller.autoRetries, "auto-retries", 3, "how often a provisioning the plugin failed as RETRYABLE is started again before it is Failed (0: never)")
	cmd.Flags().DurationVar(&d.teardownTimeout, "teardown-timeout", 5*time.Minute,
		"how long Ctrl-C waits for the plugins' Destroy of the clusters they provisioned before it stops anyway")
	// The server's own single sign-on settings: dev runs the same server.
	ssoFlags(cmd, &d.sso)
	return cmd
}

// devOptions are the flags of `kubeopera dev`.
type devOptions struct {
	listen, kubeconfigOut string
	teardownTimeout       time.Duration
	controller            controllerOptions
	sso                   serve.SSOConfig
}

// runDev starts the environment, then the server and the controller on it,
// until ctx ends; then it tears down the provisioned clusters and stops
// everything.
func runDev(ctx context.Context, d devOptions, out, logOut io.Writer) (err error) {
	listen, kubeconfigOut, o := d.listen, d.kubeconfigOut, d.controller
	start := time.Now()
	say := func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	say("starting the management sandbox (Kubernetes %s), git server, Flux chart repository and Gateway API mirror...", sandbox.KubernetesVersion)
	env, err := devenv.Start(ctx)
	if err != nil {
		return err
	}
	defer func() {
		say("stopping everything...")
		err = errors.Join(err, env.Stop())
		if kubeconfigOut != "" {
			_ = os.Remove(kubeconfigOut)
		}
	}()
	if err := devPluginSettings(env); err != nil {
		return err
	}
	if kubeconfigOut != "" {
		if err := os.WriteFile(kubeconfigOut, env.Management.Kubeconfig, 0o600); err != nil {
			return fmt.Errorf("write --kubeconfig-out: %w", err)
		}
	}
	c := serve.Config{DataDir: env.DataDir, Listen: listen, PluginDir: o.pluginDir, Getenv: os.LookupEnv,
		ManagementKubeconfig: env.Management.KubeconfigPath, SelfKubeconfig: env.Management.KubeconfigPath,
		PublicMetrics: true, // a development server on loopback: scrape it without a token
		SSO:           d.sso,
		// Its own git server: connect and create need only a name, a
		// provider and a kubeconfig or inputs.
		Defaults: api.PipelineDefaults{GitOpsRepoURL: env.GitRepoURL, GitOpsPath: "clusters/" + api.NameVar,
			Domain: api.NameVar + ".kubeopera.test", GitCredentialsSecretRef: devenv.GitSecret}}
	// A newcomer signs in to the dashboard as admin, without the setup secret.
	if _, err := serve.EnsureSuperAdmin(ctx, c, devAdmin, "admin@kubeopera.test"); err != nil {
		return err
	}
	o.db, o.metricsAddr, o.probeAddr, o.concurrency = c, "0", "0", 4
	o.retryWindow, o.chart.RepoURL, o.chartCache = time.Minute, env.ChartRepoURL, filepath.Join(env.DataDir, "charts")
	o.gatewayAPI = env.GatewayAPIRepoURL
	mc, err := client.New(env.Management.Config, client.Options{Scheme: controllerScheme()})
	if err != nil {
		return err
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(false), zap.WriteTo(logOut)))
	// The server and the controller outlive ctx until the provisioned
	// clusters are torn down.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	tornDown := make(chan error, 1)
	go func() {
		select {
		case <-ctx.Done():
		case <-runCtx.Done():
			tornDown <- nil
			return
		}
		say("tearing down the clusters plugins provisioned (Ctrl-C again to stop waiting)...")
		again, stopAgain := signal.NotifyContext(runCtx, os.Interrupt, syscall.SIGTERM)
		defer stopAgain()
		tornDown <- tearDownProvisioned(again, mc, d.teardownTimeout, say)
		cancel()
	}()
	defer func() { cancel(); err = errors.Join(err, <-tornDown) }()
	fluxDone := make(chan struct{})
	go func() { env.RunFlux(runCtx, mc, say); close(fluxDone) }()
	defer func() { cancel(); <-fluxDone }()
	return serveWithControllerOn(runCtx, env.Management.Config, c, o, out, logOut, func(addr string) {
		devBanner(say, env, serve.AdminPasswordFile(c), addr, time.Since(start))
	})
}

// devPluginSettings points the local provider at the environment's
// directory (so Stop removes its clusters) and at the sandbox binaries,
// and turns the AWS plugins' checks against AWS off unless the operator
// set KUBEOPERA_AWS_PREFLIGHT: dev runs offline, and its browser tests
// validate AWS requests with example keys.
func devPluginSettings(env *devenv.Env) error {
	bin, err := sandbox.BinDir()
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("KUBEOPERA_AWS_PREFLIGHT"); !set {
		if err := os.Setenv("KUBEOPERA_AWS_PREFLIGHT", "off"); err != nil {
			return err
		}
	}
	if err := os.Setenv("KUBEOPERA_LOCAL_CLUSTERS_DIR", env.LocalClusters); err != nil {
		return err
	}
	return os.Setenv("KUBEOPERA_TESTBIN_DIR", bin)
}

// devAdmin is the super-admin `kubeopera dev` signs in as.
const devAdmin = "admin"

func devBanner(say func(string, ...any), env *devenv.Env, passwordFile, addr string, took time.Duration) {
	say("")
	say("KubeOpera is ready in %s: http://%s", took.Round(100*time.Millisecond), addr)
	say("  dashboard: sign in as %s with the password in %s", devAdmin, passwordFile)
	say("  API: sign in with the platform-admin token in %s", filepath.Join(env.DataDir, "admin-token"))
	say("  management cluster: kubectl --kubeconfig %s get hostclusters -A", env.Management.KubeconfigPath)
	say("  GitOps repository: %s (credentials: Secret %s), the default of every cluster; domain <name>.kubeopera.test", env.GitRepoURL, devenv.GitSecret)
	say("  provision a development cluster with the local provider:")
	say(`    curl -H "Authorization: Bearer $(cat %s)" -H 'Content-Type: application/json' \`, filepath.Join(env.DataDir, "admin-token"))
	say(`      -d '{"name":"demo","provider":"local","inputs":{"nodeCount":"2"}}' \`)
	say("      http://%s/api/v1/clusters/provision", addr)
	say("Ctrl-C tears down the clusters plugins provisioned (through their Destroy), then stops everything and removes %s.", env.Dir)
}
