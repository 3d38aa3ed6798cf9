package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
)

// watchPoll is how often --watch asks for the cluster again.
var watchPoll = 2 * time.Second

func newClustersWatchCommand(c *conn) *cobra.Command {
	var within time.Duration
	cmd := &cobra.Command{
		Use:   "watch NAME",
		Short: "Follow a cluster's phase until it is Ready, Failed or gone",
		Long: "Print each phase and message of cluster NAME as it changes. Exits 0 when it is Ready (or gone,\n" +
			"after a disconnect or teardown), 9 when it is Failed, 10 when --timeout passes first.",
		Args: cobra.ExactArgs(1), ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return follow(cmd.Context(), cl, cmd.OutOrStdout(), row.Id, within)
		},
	}
	cmd.Flags().DurationVar(&within, "timeout", time.Hour, "give up after this long")
	return cmd
}

// follow prints every new phase of cluster id until it is Ready or gone
// (nil), Failed (exit code 9), or within is over (10).
func follow(ctx context.Context, cl *apiclient.ClientWithResponses, out io.Writer, id string, within time.Duration) error {
	return followUntil(ctx, cl, out, id, within, func(r *apiclient.ClusterDetail) bool { return r.Status == apiclient.ClusterDetailStatusReady })
}

// followUntil prints a cluster's phase changes until done says the
// cluster is where the caller wants it, the cluster Failed or is gone, or
// within passed.
func followUntil(ctx context.Context, cl *apiclient.ClientWithResponses, out io.Writer, id string, within time.Duration,
	done func(*apiclient.ClusterDetail) bool) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	last := ""
	for {
		resp, err := cl.GetClusterWithResponse(ctx, id)
		if err == nil && resp.StatusCode() == http.StatusNotFound {
			fmt.Fprintln(out, "gone: the cluster is no longer managed by KubeOpera")
			return nil
		}
		if err := expect(resp, err, http.StatusOK); err != nil && ctx.Err() == nil {
			return err
		}
		if r := resp.JSON200; err == nil && r != nil {
			if now := string(r.Status) + ": " + r.Message; now != last {
				last = now
				fmt.Fprintf(out, "%s  %s  %s\n", time.Now().Format("15:04:05"), r.Name, now)
			}
			switch {
			case done(r):
				return nil
			case r.Status == apiclient.ClusterDetailStatusFailed:
				return &exitError{code: exitFailed, err: fmt.Errorf("cluster %s failed: %s", r.Name, r.Message)}
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &exitError{code: exitTimeout, err: fmt.Errorf("still %s after %s; run 'kubeopera clusters watch' to keep following", last, within)}
			}
			return ctx.Err()
		case <-time.After(watchPoll):
		}
	}
}

func newClustersKubeconfigCommand(c *conn) *cobra.Command {
	var admin, execCred bool
	cmd := &cobra.Command{
		Use: "kubeconfig NAME", Args: cobra.ExactArgs(1),
		Short: "Print a kubeconfig of your own for a cluster: through KubeOpera's proxy, with a token that expires within hours",
		Long: "Print a kubeconfig that reaches the cluster through KubeOpera's proxy as you, with your role's rights there " +
			"and a token that expires within hours (or with your login, if sooner). --admin prints the cluster's own " +
			"kubeconfig instead (platform admins; audited). --exec prints one that holds no token: kubectl runs " +
			"'kubeopera cluster-token' (this CLI, on your PATH) for a fresh one from your login whenever it needs one.",
		ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			var params apiclient.GetClusterKubeconfigParams
			if admin && execCred {
				return &exitError{code: exitUsage, err: errors.New("--admin and --exec: pick one (the cluster's own kubeconfig carries its own credential)")}
			}
			if admin {
				v := apiclient.True
				params.Admin = &v
			}
			if execCred {
				v := apiclient.GetClusterKubeconfigParamsCredentialExec
				params.Credential = &v
			}
			resp, err := cl.GetClusterKubeconfigWithResponse(cmd.Context(), row.Id, &params)
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			if exp := resp.JSON200.ExpiresAt; exp != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "kubeconfig for %s expires at %s\n", row.Name, exp.Local().Format(time.RFC3339))
			}
			_, err = io.WriteString(cmd.OutOrStdout(), resp.JSON200.Kubeconfig)
			return err
		},
	}
	cmd.Flags().BoolVar(&admin, "admin", false, "the cluster's own kubeconfig, as KubeOpera reaches it (platform admins; audited)")
	cmd.Flags().BoolVar(&execCred, "exec", false, "a kubeconfig whose user runs 'kubeopera cluster-token' for a short-lived token, instead of holding one")
	return cmd
}

func newClustersHealthCommand(c *conn) *cobra.Command {
	return &cobra.Command{
		Use: "health NAME", Short: "A cluster's health score and the findings behind it", Args: cobra.ExactArgs(1),
		ValidArgsFunction: c.completeClusterNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, row, err := c.cluster(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			resp, err := cl.GetClusterHealthWithResponse(cmd.Context(), row.Id)
			if err := expect(resp, err, http.StatusOK); err != nil {
				return err
			}
			h := resp.JSON200
			return emit(cmd.OutOrStdout(), c.output, h, func(w *tabwriter.Writer, _ bool) {
				fmt.Fprintf(w, "SCORE\t%.0f (%s)\n", h.Score, h.Badge)
				fmt.Fprintln(w, "RULE\tSUBJECT\tPENALTY\tDETAIL")
				for _, f := range h.Findings {
					fmt.Fprintf(w, "%s\t%s\t%v\t%s\n", f.Rule, f.Subject, f.Penalty, f.Detail)
				}
			})
		},
	}
}
