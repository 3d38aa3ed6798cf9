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
		unsigned      time.Duration
	)
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log of mutating API requests, newest first",
		Long: "Show who changed what through the API: time, actor (token or user), method and route, target ID,\n" +
			"result and request ID. It never holds request content.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return fmt.Errorf("--limit must be at least 1")
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
