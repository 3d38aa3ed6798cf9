package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// Day 2 from the terminal: scale and upgrade are one PATCH of the
// cluster's desired shape; the server checks it against the plugin first
// (409 when the plugin cannot, 422 for a value it does not take).

func newClustersScaleCommand(c *conn) *cobra.Command {
	var nodes int
	u := updateFlags{}
	cmd := &cobra.Command{
		Use:   "scale NAME --nodes N",
		Short: "Change a provisioned cluster's worker node count through its plugin (admins)",
		Args:  cobra.ExactArgs(1), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if nodes < 0 || !cmd.Flags().Changed("nodes") {
				return &exitError{code: exitUsage, err: fmt.Errorf("--nodes N is required (0 or more)")}
			}
			return u.run(cmd, c, args[0], apiclient.UpdateClusterRequest{NodeCount: &nodes},
				scaledTo(nodes))
		},
	}
	cmd.Flags().IntVar(&nodes, "nodes", 0, "the worker node count to move to")
	u.add(cmd)
	return cmd
}

func newClustersUpgradeCommand(c *conn) *cobra.Command {
	var version string
	u := updateFlags{}
	cmd := &cobra.Command{
		Use:   "upgrade NAME --version V",
		Short: "Move a provisioned cluster to another Kubernetes version through its plugin (admins)",
		Long: "Ask the cluster's plugin to upgrade it to version V (for example 1.38): the server refuses a\n" +
			"downgrade, a skipped minor and a plugin that cannot upgrade, before anything changes.",
		Args: cobra.ExactArgs(1), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			if version == "" {
				return &exitError{code: exitUsage, err: fmt.Errorf("--version V is required, e.g. --version 1.38")}
			}
			want := strings.TrimPrefix(version, "v")
			return u.run(cmd, c, args[0], apiclient.UpdateClusterRequest{KubernetesVersion: &version},
				func(r *apiclient.ClusterDetail) bool {
					return strings.HasPrefix(strings.TrimPrefix(r.KubernetesVersion, "v"), want)
				})
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "the Kubernetes version to move to")
	u.add(cmd)
	return cmd
}

// updateFlags are the flags scale and upgrade share.
type updateFlags struct {
	wait   bool
	within time.Duration
}

func (u *updateFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&u.wait, "watch", false, "follow the change until the cluster is Ready at its new shape")
	cmd.Flags().DurationVar(&u.within, "timeout", time.Hour, "how long --watch follows")
}

// run sends the change and, with --watch, follows the cluster until it is
// Ready and shows the new shape (reached says when): Ready alone is not
// enough, since the cluster reads Ready until its controller starts.
func (u *updateFlags) run(cmd *cobra.Command, c *conn, name string, body apiclient.UpdateClusterRequest,
	reached func(*apiclient.ClusterDetail) bool) error {
	cl, row, err := c.cluster(cmd.Context(), name)
	if err != nil {
		return err
	}
	resp, err := cl.UpdateClusterWithResponse(cmd.Context(), row.Id, body)
	if err := expect(resp, err, http.StatusAccepted); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s: %s\n", row.Name, resp.JSON202.Status, resp.JSON202.Message)
	if !u.wait {
		return nil
	}
	return followUntil(cmd.Context(), cl, cmd.OutOrStdout(), row.Id, u.within, func(r *apiclient.ClusterDetail) bool {
		return r.Status == apiclient.ClusterDetailStatusReady && reached(r)
	})
}

// scaledTo says when a scale to nodes workers is reached (with Ready).
func scaledTo(nodes int) func(*apiclient.ClusterDetail) bool {
	return func(r *apiclient.ClusterDetail) bool { return workers(r) == nodes }
}

// workers is the cluster's worker node count, what --nodes sets: counted
// apart by its controller, or (from a server before it did) every node.
func workers(r *apiclient.ClusterDetail) int {
	if r.WorkerNodeCount != nil {
		return *r.WorkerNodeCount
	}
	return r.NodeCount
}
