package main

import (
	"fmt"
	"net/http"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// pipelineFlags are the GitOps settings connect and provision share.
type pipelineFlags struct {
	domain, repoURL, path, gitSecret, team string
	watch                                  bool
	within                                 time.Duration
}

func (p *pipelineFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&p.domain, "domain", "", "the DNS domain of the platform on the cluster (required)")
	f.StringVar(&p.repoURL, "gitops-repo-url", "", "the Git repository Flux syncs the cluster from (required)")
	f.StringVar(&p.path, "gitops-path", "", "the folder of that repository for this cluster (default clusters/NAME)")
	f.StringVar(&p.gitSecret, "git-credentials-secret", "", "the Secret in KubeOpera's namespace with the repository's credentials")
	f.StringVar(&p.team, "team", "", "the team that owns the cluster (default: the team \"default\"); you need the admin role there")
	f.BoolVar(&p.watch, "watch", false, "follow the cluster's phases until it is Ready or Failed")
	f.DurationVar(&p.within, "timeout", time.Hour, "how long --watch follows")
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// started prints the new cluster and follows it with --watch.
func (p *pipelineFlags) started(cmd *cobra.Command, c *conn, cl *apiclient.ClientWithResponses, v *apiclient.Cluster) error {
	if err := emit(cmd.OutOrStdout(), c.output, v, func(w *tabwriter.Writer, wide bool) { clusterTable(w, wide, []apiclient.Cluster{*v}) }); err != nil {
		return err
	}
	if !p.watch {
		return nil
	}
	return follow(cmd.Context(), cl, cmd.ErrOrStderr(), v.Id, p.within)
}

func newClustersConnectCommand(c *conn) *cobra.Command {
	var p pipelineFlags
	var name, provider, region, kubeconfigFile string
	cmd := &cobra.Command{
		Use: "connect", Short: "Connect an existing cluster by its kubeconfig (admins)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kc, err := os.ReadFile(kubeconfigFile)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("--kubeconfig: %w", err)}
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.ConnectClusterWithResponse(cmd.Context(), apiclient.ConnectRequest{Name: name, Provider: provider,
				Region: optional(region), Kubeconfig: string(kc), Domain: p.domain, GitOpsRepoURL: p.repoURL,
				GitOpsPath: optional(p.path), GitCredentialsSecretRef: optional(p.gitSecret), Team: optional(p.team)})
			if err := expect(resp, err, http.StatusAccepted); err != nil {
				return err
			}
			return p.started(cmd, c, cl, resp.JSON202)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the cluster's name in KubeOpera (required)")
	f.StringVar(&provider, "provider", "", "where it runs: aws, gcp, azure, on-prem, ... (required)")
	f.StringVar(&region, "region", "", "its region, if any")
	f.StringVar(&kubeconfigFile, "kubeconfig", "", "a kubeconfig file with embedded credentials (required)")
	p.add(cmd)
	return cmd
}

func newClustersProvisionCommand(c *conn) *cobra.Command {
	var p pipelineFlags
	var name, provider, topology string
	var inputs []string
	cmd := &cobra.Command{
		Use:   "provision",
		Short: "Create a new cluster through a provider plugin (admins)",
		Long: "Create a new cluster with the provider plugin --provider ('kubeopera providers list' shows them;\n" +
			"with -o yaml, each one's inputs: name, type, bounds). Inputs are given as --input NAME=VALUE. Each\n" +
			"provider names its own credential input: the input of type credential there takes the ID of a\n" +
			"stored credential ('kubeopera credentials list'), e.g. --input token=ID for a provider whose\n" +
			"credential input is called token.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, err := keyValues("--input", inputs)
			if err != nil {
				return err
			}
			cl, err := c.client()
			if err != nil {
				return err
			}
			resp, err := cl.ProvisionClusterWithResponse(cmd.Context(), apiclient.ProvisionRequest{Name: name, Provider: provider,
				Topology: optional(topology), Inputs: &in, Domain: p.domain, GitOpsRepoURL: p.repoURL,
				GitOpsPath: optional(p.path), GitCredentialsSecretRef: optional(p.gitSecret), Team: optional(p.team)})
			if err := expect(resp, err, http.StatusAccepted); err != nil {
				return err
			}
			return p.started(cmd, c, cl, resp.JSON202)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "the new cluster's name (required)")
	f.StringVar(&provider, "provider", "", "the provider plugin, such as aws-eks or local (required)")
	f.StringVar(&topology, "topology", "", "one of the topologies the provider lists")
	f.StringArrayVar(&inputs, "input", nil, "a provider input as key=value (repeat)")
	p.add(cmd)
	return cmd
}

func newClustersDisconnectCommand(c *conn) *cobra.Command {
	var wait bool
	var within time.Duration
	var sure confirmFlags
	cmd := &cobra.Command{
		Use:   "disconnect NAME",
		Short: "Stop managing a cluster; what Flux applied keeps running (admins)",
		Long: "Ask the server to stop managing the cluster NAME: KubeOpera removes the Flux objects it created\n" +
			"(what they applied keeps running) and forgets the cluster; a provisioned cluster's cloud resources\n" +
			"keep running. On a terminal it asks for the cluster's name first; elsewhere pass --yes or\n" +
			"--confirm NAME. With --watch, follow it until the cluster is gone.",
		Args: needsArg("the cluster's name", "NAME"), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sure.canAsk(cmd, args[0]); err != nil {
				return err
			}
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := sure.confirmed(cmd, row.Name, fmt.Sprintf("KubeOpera will stop managing cluster %q; what Flux applied on it keeps running.", row.Name)); err != nil {
				return err
			}
			resp, err := cl.DisconnectClusterWithResponse(cmd.Context(), row.Id)
			if err := expect(resp, err, http.StatusAccepted, http.StatusNoContent); err != nil {
				return err
			}
			if resp.StatusCode() == http.StatusNoContent {
				fmt.Fprintf(cmd.OutOrStdout(), "%s: disconnected\n", row.Name)
				return nil
			}
			return accepted(cmd, cl, row.Name, row.Id, resp.JSON202, wait, within)
		},
	}
	sure.add(cmd, "disconnect it")
	cmd.Flags().BoolVar(&wait, "watch", false, "follow the disconnect until the cluster is gone")
	cmd.Flags().DurationVar(&within, "timeout", 30*time.Minute, "how long --watch follows")
	return cmd
}

func newTeardownCommand(c *conn) *cobra.Command {
	var wait bool
	var within time.Duration
	var sure confirmFlags
	cmd := &cobra.Command{
		Use:   "teardown NAME",
		Short: "Destroy a provisioned cluster's cloud resources, then remove it from KubeOpera (admins)",
		Long: "Ask the server to tear down the provisioned cluster NAME: its provider plugin destroys everything it\n" +
			"created in the cloud, and the cluster is removed once that is done. On a terminal it asks for the\n" +
			"cluster's name first; elsewhere pass --yes or --confirm NAME. A teardown that failed is retried by\n" +
			"running this again. With --watch, follow it until it is done or failed.",
		Args: needsArg("the cluster's name", "NAME"), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sure.canAsk(cmd, args[0]); err != nil {
				return err
			}
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if err := sure.confirmed(cmd, row.Name, fmt.Sprintf("Cluster %q and everything its plugin created in the cloud will be destroyed.", row.Name)); err != nil {
				return err
			}
			resp, err := cl.TeardownClusterWithResponse(cmd.Context(), row.Id, apiclient.TeardownRequest{ConfirmName: row.Name})
			if err := expect(resp, err, http.StatusAccepted); err != nil {
				return err
			}
			return accepted(cmd, cl, row.Name, row.Id, resp.JSON202, wait, within)
		},
	}
	sure.add(cmd, "tear it down")
	cmd.Flags().BoolVar(&wait, "watch", false, "follow the teardown until the cluster is gone or it failed")
	cmd.Flags().BoolVar(&wait, "wait", false, "the same as --watch")
	cmd.Flags().DurationVar(&within, "timeout", time.Hour, "how long --watch follows")
	return cmd
}

func newRetryCommand(c *conn) *cobra.Command {
	var wait bool
	var within time.Duration
	cmd := &cobra.Command{
		Use:   "retry NAME",
		Short: "Try a Failed cluster again from the step that failed (admins)",
		Long: "Ask the server to try the Failed cluster NAME again once what failed is fixed: a provisioned\n" +
			"cluster's plugin resumes provisioning the same cluster, a connected one is checked again, and the\n" +
			"onboarding steps run again. With --watch, follow it until it is Ready or Failed again.",
		Args: cobra.ExactArgs(1), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			resp, err := cl.RetryClusterWithResponse(cmd.Context(), row.Id)
			if err := expect(resp, err, http.StatusAccepted); err != nil {
				return err
			}
			return accepted(cmd, cl, row.Name, row.Id, resp.JSON202, wait, within)
		},
	}
	cmd.Flags().BoolVar(&wait, "watch", false, "follow the cluster until it is Ready or Failed again")
	cmd.Flags().DurationVar(&within, "timeout", time.Hour, "how long --watch follows")
	return cmd
}

// accepted prints the server's answer to an accepted lifecycle request
// (disconnect, teardown, retry) and, with wait, follows the cluster.
func accepted(cmd *cobra.Command, cl *apiclient.ClientWithResponses, name, id string, r *apiclient.LifecycleResponse,
	wait bool, within time.Duration) error {
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s: %s\n", name, r.Status, r.Message)
	if !wait {
		return nil
	}
	return follow(cmd.Context(), cl, cmd.OutOrStdout(), id, within)
}
