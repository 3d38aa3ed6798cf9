package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// apiClient calls a KubeOpera server's REST API with a bearer token.
type apiClient struct {
	server, token string
	http          *http.Client
}

// clusterRow is the part of a cluster the CLI shows.
type clusterRow struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Source            string `json:"source"`
	Status            string `json:"status"`
	Message           string `json:"message"`
	KubernetesVersion string `json:"kubernetes_version"`
	NodeCount         int    `json:"node_count"`
	ReadyNodeCount    int    `json:"ready_node_count"`
}

func newClustersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "clusters", Short: "List and tear down clusters through a KubeOpera server's API"}
	var c apiClient
	cmd.PersistentFlags().StringVar(&c.server, "server", os.Getenv("KUBEOPERA_SERVER"), "the server's URL, e.g. https://kubeopera.example.com (env KUBEOPERA_SERVER)")
	cmd.PersistentFlags().StringVar(&c.token, "token", os.Getenv("KUBEOPERA_TOKEN"), "an API token (env KUBEOPERA_TOKEN; create one with 'kubeopera tokens create')")
	c.http = &http.Client{Timeout: 30 * time.Second}
	list := &cobra.Command{
		Use: "list", Short: "List clusters with their phase, version and nodes", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := c.clusters(cmd.Context())
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSTATUS\tVERSION\tNODES\tMESSAGE")
			for _, r := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s\t%d/%d\t%s\n", r.Name, r.Status, r.KubernetesVersion, r.ReadyNodeCount, r.NodeCount, r.Message)
			}
			return w.Flush()
		},
	}
	cmd.AddCommand(list, newTeardownCommand(&c))
	return cmd
}

func newTeardownCommand(c *apiClient) *cobra.Command {
	var wait bool
	var within time.Duration
	cmd := &cobra.Command{
		Use:   "teardown NAME",
		Short: "Destroy a provisioned cluster's cloud resources, then remove it from KubeOpera",
		Long: "Ask the server to tear down the provisioned cluster NAME: its provider plugin destroys everything it\n" +
			"created in the cloud, and the cluster is removed once that is done. A teardown that failed is\n" +
			"retried by running this again. With --wait, follow it until it is done or failed.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			row, err := c.find(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var resp struct{ Status, Message string }
			body := map[string]string{"confirmName": row.Name}
			if err := c.do(cmd.Context(), http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", body, &resp); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s: %s\n", row.Name, resp.Status, resp.Message)
			if !wait {
				return nil
			}
			return c.follow(cmd.Context(), cmd.OutOrStdout(), row.ID, within)
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the teardown until the cluster is gone or it failed")
	cmd.Flags().DurationVar(&within, "timeout", time.Hour, "how long --wait follows the teardown")
	return cmd
}

// follow prints every new status of cluster id until it is gone (nil) or
// Failed (an error), or within is over.
func (c *apiClient) follow(ctx context.Context, out io.Writer, id string, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	last := ""
	for {
		var row clusterRow
		err := c.do(ctx, http.MethodGet, "/api/v1/clusters/"+id, nil, &row)
		if err != nil && strings.Contains(err.Error(), "HTTP 404") {
			fmt.Fprintln(out, "torn down: the cluster is gone")
			return nil
		}
		if err == nil && row.Status+row.Message != last {
			last = row.Status + row.Message
			fmt.Fprintf(out, "%s: %s\n", row.Status, row.Message)
		}
		if err == nil && row.Status == "Failed" {
			return fmt.Errorf("teardown of %s failed: %s", row.Name, row.Message)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("still tearing down after %s; run with --wait again to keep following: %w", within, ctx.Err())
		case <-time.After(2 * time.Second):
		}
	}
}

func (c *apiClient) clusters(ctx context.Context) ([]clusterRow, error) {
	var list struct{ Items []clusterRow }
	if err := c.do(ctx, http.MethodGet, "/api/v1/clusters", nil, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// find returns the cluster named name.
func (c *apiClient) find(ctx context.Context, name string) (*clusterRow, error) {
	rows, err := c.clusters(ctx)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if rows[i].Name == name {
			return &rows[i], nil
		}
	}
	return nil, fmt.Errorf("no cluster named %q on %s ('kubeopera clusters list' shows them)", name, c.server)
}

// do sends a JSON request and decodes a 2xx answer into out; any other
// answer is an error carrying the problem's detail.
func (c *apiClient) do(ctx context.Context, method, path string, in, out any) error {
	if c.server == "" || c.token == "" {
		return fmt.Errorf("set --server and --token (or KUBEOPERA_SERVER and KUBEOPERA_TOKEN)")
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.server, "/")+path, body)
	if err != nil {
		return fmt.Errorf("--server %q: %w", c.server, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		var p struct{ Detail string }
		_ = json.Unmarshal(raw, &p)
		if p.Detail == "" {
			p.Detail = strings.TrimSpace(string(raw))
		}
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, p.Detail)
	}
	if out == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, out)
}
