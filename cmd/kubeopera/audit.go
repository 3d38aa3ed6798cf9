package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func newAuditCommand() *cobra.Command {
	var (
		c             serve.Config
		actor, target string
		limit         int
		api           = &conn{}
		unsigned      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log of changes (and kubeconfig reads), newest first: through the API as an admin, or with --data-dir/--database",
		Long: "Show who changed what through the API: time, actor (token or user), method and route, target ID,\n" +
			"result and request ID. It never holds request content.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--limit must be at least 1")}
			}
			if !viaDatabase(cmd) {
				if unsigned > 0 {
					return &exitError{code: exitUsage, err: fmt.Errorf("--unsigned reads the counts from the database: give --data-dir or --database")}
				}
				return apiAudit(cmd, api, actor, target, limit)
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			if unsigned > 0 {
				return printUnsigned(cmd, st, unsigned)
			}
			rows, err := st.ListAuditEvents(cmd.Context(), store.AuditFilter{Actor: actor, Target: target, Limit: limit})
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "TIME\tACTOR\tREQUEST\tTARGET\tSTATUS\tREQUEST ID")
			for _, e := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s %s\t%s\t%s\t%s\n", e.At.UTC().Format("2006-01-02 15:04:05Z"), orDash(e.Actor),
					e.Method, e.Route, orDash(e.Target), strconv.Itoa(e.Status), e.RequestID)
			}
			return w.Flush()
		},
	}
	serverFlags(cmd, &c)
	apiFlags(cmd, api)
	cmd.Flags().StringVar(&actor, "actor", "", "only this token or user (name or ID)")
	cmd.Flags().StringVar(&target, "target", "", "only requests on this ID")
	cmd.Flags().IntVar(&limit, "limit", 50, "how many events")
	cmd.Flags().DurationVar(&unsigned, "unsigned", 0, "instead, count the requests nobody signed (kept as counts, not events) in this last period, such as 24h")
	return cmd
}

// printUnsigned prints the hourly counts of unsigned requests since
// now-period.
func printUnsigned(cmd *cobra.Command, st *store.Store, period time.Duration) error {
	counts, err := st.AuditCounts(cmd.Context(), time.Now().Add(-period))
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "HOUR	METHOD	STATUS	REQUESTS")
	for _, c := range counts {
		fmt.Fprintf(w, "%s	%s	%d	%d\n", c.Hour.UTC().Format("2006-01-02 15:04Z"), c.Method, c.Status, c.Count)
	}
	return w.Flush()
}
