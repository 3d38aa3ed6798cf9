package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func newDevCommand() *cobra.Command {
	var (
		out    string
		nodes  int
		region string
	)
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run a local management sandbox (real kube-apiserver, simulated nodes) until interrupted",
		Long: "Start etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from bin/k8s\n" +
			"(built by 'make testbin') with simulated AWS nodes, write an admin kubeconfig, and keep\n" +
			"running until Ctrl-C. Everything is removed on exit.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var ns []sandbox.Node
			for i := range nodes {
				az := fmt.Sprintf("%s%c", region, 'a'+i%3)
				ns = append(ns, sandbox.Node{
					Name:       fmt.Sprintf("dev-node-%d", i+1),
					ProviderID: fmt.Sprintf("aws:///%s/i-0dev%013d", az, i+1),
					Labels: map[string]string{"topology.kubernetes.io/region": region,
						"topology.kubernetes.io/zone": az},
				})
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "starting sandbox %s with %d nodes...\n", sandbox.KubernetesVersion, nodes)
			start := time.Now()
			sb, err := sandbox.Start(ctx, sandbox.Options{Nodes: ns, CRDDirs: existing("config/crd")})
			if err != nil {
				return err
			}
			defer sb.Stop()
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, sb.Kubeconfig, 0o600); err != nil {
				return fmt.Errorf("write kubeconfig: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "sandbox ready in %s at %s\nkubeconfig: %s\n  kubectl --kubeconfig %s get nodes\nCtrl-C stops it and removes everything.\n",
				time.Since(start).Round(100*time.Millisecond), sb.Config.Host, out, out)
			<-ctx.Done()
			fmt.Fprintln(cmd.ErrOrStderr(), "stopping sandbox...")
			_ = os.Remove(out)
			return sb.Stop()
		},
	}
	cmd.Flags().StringVar(&out, "kubeconfig-out", "bin/dev/kubeconfig", "where to write the sandbox's admin kubeconfig")
	cmd.Flags().IntVar(&nodes, "nodes", 3, "number of simulated nodes")
	cmd.Flags().StringVar(&region, "region", "eu-north-1", "AWS region the simulated nodes report")
	return cmd
}

// existing returns the directories among dirs that exist.
func existing(dirs ...string) []string {
	var out []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
