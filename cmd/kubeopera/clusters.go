package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

func newClustersCommand() *cobra.Command {
	c := &conn{}
	cmd := &cobra.Command{Use: "clusters", Short: "List, connect, provision, watch, disconnect and tear down clusters through a KubeOpera server"}
	apiFlags(cmd, c)
	cmd.AddCommand(newClustersListCommand(c), newClustersGetCommand(c), newClustersKubeconfigCommand(c), newClustersHealthCommand(c),
		newClustersWatchCommand(c), newClustersConnectCommand(c), newClustersProvisionCommand(c), newClustersDisconnectCommand(c),
		newTeardownCommand(c), newRetryCommand(c), newClustersScaleCommand(c), newClustersUpgradeCommand(c))
	return cmd
}

func newClustersListCommand(c *conn) *cobra.Command {
	var phase, provider, source, namePrefix, team string
	cmd := &cobra.Command{
		Use: "list", Short: "List the clusters of your teams with their phase, version and nodes", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cl, err := c.client()
			if err != nil {
				return err
			}
			p := apiclient.ListClustersParams{}
			if phase != "" {
				v := apiclient.ListClustersParamsPhase(phase)
				p.Phase = &v
			}
			if source != "" {
				v := apiclient.ListClustersParamsSource(source)
				p.Source = &v
			}
			if provider != "" {
				p.Provider = &provider
			}
			if namePrefix != "" {
				p.NamePrefix = &namePrefix
			}
			if team != "" {
				p.Team = &team
			}
			items, err := listClusters(cmd.Context(), cl, p)
			if err != nil {
				return err
			}
			return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, wide bool) { clusterTable(w, wide, items) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&phase, "phase", "", "only clusters in this phase (Pending, Ready, Failed, ...)")
	f.StringVar(&provider, "provider", "", "only clusters of this provider (aws, gcp, ...)")
	f.StringVar(&source, "source", "", "only clusters from this source (connected_existing, provisioned, ...)")
	f.StringVar(&namePrefix, "name-prefix", "", "only clusters whose name starts with this")
	f.StringVar(&team, "team", "", "only clusters of this team")
	_ = cmd.RegisterFlagCompletionFunc("phase", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, p := range v1alpha1.Phases {
			out = append(out, string(p))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func clusterTable(w *tabwriter.Writer, wide bool, items []apiclient.Cluster) {
	if wide {
		fmt.Fprintln(w, "NAME\tPHASE\tTEAM\tYOUR ROLE\tPROVIDER\tREGION\tSOURCE\tVERSION\tNODES\tID\tMESSAGE")
	} else {
		fmt.Fprintln(w, "NAME\tPHASE\tPROVIDER\tVERSION\tNODES\tAGE")
	}
	for _, r := range items {
		nodes := fmt.Sprintf("%d/%d", r.ReadyNodeCount, r.NodeCount)
		if wide {
			role := "-"
			if r.Role != nil {
				role = string(*r.Role)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Status, r.Team, role, r.Provider, orDash(r.Region), r.Source,
				orDash(r.KubernetesVersion), nodes, r.Id, r.Message)
		} else {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Status, r.Provider, orDash(r.KubernetesVersion), nodes, age(r.CreatedAt))
		}
	}
}

func age(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// listClusters follows the pages of GET /clusters.
func listClusters(ctx context.Context, cl *apiclient.ClientWithResponses, p apiclient.ListClustersParams) ([]apiclient.Cluster, error) {
	limit := 500
	p.Limit = &limit
	items := []apiclient.Cluster{}
	for {
		resp, err := cl.ListClustersWithResponse(ctx, &p)
		if err := expect(resp, err, http.StatusOK); err != nil {
			return nil, err
		}
		items = append(items, resp.JSON200.Items...)
		if resp.JSON200.Continue == "" {
			return items, nil
		}
		next := resp.JSON200.Continue
		p.Continue = &next
	}
}

func newClustersGetCommand(c *conn) *cobra.Command {
	return &cobra.Command{
		Use: "get NAME", Short: "Show one cluster (by name or ID)", Args: cobra.ExactArgs(1),
		ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			resp, err := cl.GetClusterWithResponse(cmd.Context(), row.Id)
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			v, err := asListed(resp.Body)
			if err != nil {
				return err
			}
			return emit(cmd.OutOrStdout(), c.output, *resp.JSON200, func(w *tabwriter.Writer, wide bool) {
				clusterTable(w, wide, []apiclient.Cluster{*v})
			})
		},
	}
}

// asListed reads GET /clusters/{id}'s answer as the cluster a list holds:
// the page's answer has every field of a list item (and more), but its
// generated enum types are its own.
func asListed(body []byte) (*apiclient.Cluster, error) {
	var c apiclient.Cluster
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("read the server's answer for the cluster: %w", err)
	}
	return &c, nil
}

// findCluster returns the cluster named (or with the ID) ref.
// cluster is the client of the current context and the cluster ref names
// (a name or an ID): what every command on one cluster starts with.
func (c *conn) cluster(ctx context.Context, ref string) (*apiclient.ClientWithResponses, *apiclient.Cluster, error) {
	cl, err := c.client()
	if err != nil {
		return nil, nil, err
	}
	row, err := findCluster(ctx, cl, ref)
	return cl, row, err
}

func findCluster(ctx context.Context, cl *apiclient.ClientWithResponses, ref string) (*apiclient.Cluster, error) {
	items, err := listClusters(ctx, cl, apiclient.ListClustersParams{})
	if err != nil {
		return nil, err
	}
	for i := range items {
		if items[i].Name == ref || items[i].Id == ref {
			return &items[i], nil
		}
	}
	return nil, &exitError{code: exitNotFound, err: fmt.Errorf("no cluster named %q ('kubeopera clusters list' shows them)", ref)}
}

// completeClusterNames completes cluster names from the server (shell
// completion: kubeopera completion bash|zsh|fish).
func (c *conn) completeClusterNames(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cl, err := c.client()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	items, err := listClusters(cmd.Context(), cl, apiclient.ListClustersParams{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	names := make([]string, 0, len(items))
	for _, r := range items {
		names = append(names, r.Name+"\t"+string(r.Status))
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
