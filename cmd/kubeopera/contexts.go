package main

import (
	"fmt"
	"net/http"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newLogoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout [CONTEXT]",
		Short: "Forget a context's token (the current one by default) and revoke it on the server",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, path, err := loadConfig()
			if err != nil {
				return err
			}
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			ctx, err := cfg.context(name)
			if err != nil {
				return err
			}
			note := ""
			if ctx.Token != "" {
				note = revokeOwnToken(cmd, *ctx)
			}
			removed := ctx.Name // ctx points into Contexts, which DeleteFunc shifts
			cfg.Contexts = slices.DeleteFunc(cfg.Contexts, func(x cliContext) bool { return x.Name == removed })
			if cfg.CurrentContext == removed {
				cfg.CurrentContext = ""
			}
			if err := cfg.save(path); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged out of context %q%s\n", removed, note)
			return nil
		},
	}
}

// revokeOwnToken revokes the context's token with the token itself
// (DELETE /session), which any role may; the note says whether it did,
// and when it could not, how long the token keeps working.
func revokeOwnToken(cmd *cobra.Command, ctx cliContext) string {
	cl, err := newAPIClient(ctx.Server, ctx.Token)
	if err == nil {
		resp, rerr := cl.SignOutWithResponse(cmd.Context())
		if err = expect(resp, rerr, http.StatusNoContent); err == nil {
			return "; its token is revoked, and so are the cluster tokens and kubeconfigs got with it"
		}
		if exitCodeOf(err) == exitAuth {
			return "; its token was already revoked or expired"
		}
	}
	if ctx.ExpiresAt != nil {
		return fmt.Sprintf("; its token could not be revoked (%v) and works until %s", err, ctx.ExpiresAt.Local().Format(time.RFC3339))
	}
	return fmt.Sprintf("; its token could not be revoked (%v) and works until an admin revokes it", err)
}

func newContextCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "context", Short: "List the servers you are logged in to and choose which one commands use"}
	var output string
	list := &cobra.Command{
		Use: "list", Short: "List login contexts; * marks the current one", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, _, err := loadConfig()
			if err != nil {
				return err
			}
			// Never print the tokens.
			type row struct {
				Name      string     `json:"name"`
				Current   bool       `json:"current"`
				Server    string     `json:"server"`
				Username  string     `json:"username,omitempty"`
				ExpiresAt *time.Time `json:"expiresAt,omitempty"`
			}
			rows := []row{}
			for _, c := range cfg.Contexts {
				rows = append(rows, row{c.Name, c.Name == cfg.CurrentContext, c.Server, c.Username, c.ExpiresAt})
			}
			return emit(cmd.OutOrStdout(), output, rows, func(w *tabwriter.Writer, _ bool) {
				fmt.Fprintln(w, "CURRENT\tNAME\tSERVER\tUSER\tEXPIRES")
				for _, r := range rows {
					mark, exp := "", "never"
					if r.Current {
						mark = "*"
					}
					if r.ExpiresAt != nil {
						exp = r.ExpiresAt.Local().Format(time.RFC3339)
					}
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", mark, r.Name, r.Server, orDash(r.Username), exp)
				}
			})
		},
	}
	list.Flags().StringVarP(&output, "output", "o", "table", "output format: table, json or yaml")
	use := &cobra.Command{
		Use: "use NAME", Short: "Make NAME the current context", Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			cfg, _, err := loadConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			var names []string
			for _, c := range cfg.Contexts {
				names = append(names, c.Name)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, path, err := loadConfig()
			if err != nil {
				return err
			}
			if _, err := cfg.context(args[0]); err != nil {
				return err
			}
			cfg.CurrentContext = args[0]
			if err := cfg.save(path); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "now using context %q\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, use)
	return cmd
}
