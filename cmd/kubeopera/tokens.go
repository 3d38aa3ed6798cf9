package main

import (
	"context"
	"fmt"
	"net/http"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	kapi "github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func newTokensCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "tokens", Short: "Manage API tokens: through the API as an admin, or with --data-dir/--database on the server's database"}
	api := &conn{}
	apiFlags(cmd, api)
	var (
		c          serve.Config
		role, name string
		ttl        time.Duration
	)
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API token and print it once",
		Long:  "Create an API token with a role in the server's database and print it once to stdout;\nonly its hash is stored, so it cannot be shown again.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := kapi.ParseRole(role)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("--role: %w", err)}
			}
			if name == "" {
				return &exitError{code: exitUsage, err: fmt.Errorf("--name is required: it names the token in logs and audit")}
			}
			if ttl < 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--ttl must be positive, such as 720h; omit it for a token that does not expire")}
			}
			if !viaDatabase(cmd) {
				return apiTokensCreate(cmd, api, name, role, ttl)
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			token, hash := kapi.NewToken()
			t := &store.Token{Name: name, Role: string(r), Hash: hash}
			if ttl > 0 {
				exp := time.Now().Add(ttl).UTC().Truncate(time.Microsecond)
				t.ExpiresAt = &exp
			}
			if err := st.CreateToken(cmd.Context(), t); err != nil {
				return err
			}
			if err := auditCLI(cmd.Context(), cmd, st, t.ID, http.StatusCreated); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), token)
			fmt.Fprintf(cmd.ErrOrStderr(), "created %s token %q; it is shown only this once\n", r, name)
			return nil
		},
	}
	serverFlags(create, &c)
	create.Flags().StringVar(&role, "role", "viewer", "platform-admin or viewer")
	create.Flags().StringVar(&name, "name", "", "a name for the token (required)")
	create.Flags().DurationVar(&ttl, "ttl", 0, "expire the token after this long, such as 720h (default: never)")
	cmd.AddCommand(create, newTokensListCommand(api), newTokensRevokeCommand(api))
	return cmd
}

func newTokensListCommand(api *conn) *cobra.Command {
	var c serve.Config
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List API tokens: name, role, last use, expiry, revocation (never the tokens)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !viaDatabase(cmd) {
				return apiTokensList(cmd, api)
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			rows, err := st.ListTokens(cmd.Context())
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tNAME\tROLE\tCREATED\tLAST USED\tEXPIRES\tSTATE")
			now := time.Now()
			for _, t := range rows {
				state := "active"
				switch {
				case t.RevokedAt != nil:
					state = "revoked " + stamp(t.RevokedAt)
				case !t.Active(now):
					state = "expired"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Role, stamp(&t.CreatedAt),
					stamp(t.LastUsedAt), stamp(t.ExpiresAt), state)
			}
			return w.Flush()
		},
	}
	serverFlags(cmd, &c)
	return cmd
}

func newTokensRevokeCommand(api *conn) *cobra.Command {
	var c serve.Config
	cmd := &cobra.Command{
		Use:   "revoke ID|NAME",
		Short: "Revoke an API token; it stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !viaDatabase(cmd) {
				return apiTokensRevoke(cmd, api, args[0])
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			t, err := revokeLocalToken(cmd.Context(), st, args[0])
			if err != nil {
				return err
			}
			if err := auditCLI(cmd.Context(), cmd, st, t.ID, http.StatusOK); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s token %q (%s)\n", t.Role, t.Name, t.ID)
			return nil
		},
	}
	serverFlags(cmd, &c)
	return cmd
}

// stamp shows a time to the minute, or "-" for none.
func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// revokeLocalToken is the break-glass revoke: it resolves ref as the API
// path does (resolveToken) and revokes by ID.
func revokeLocalToken(ctx context.Context, st *store.Store, ref string) (*store.Token, error) {
	rows, err := st.ListTokens(ctx)
	if err != nil {
		return nil, err
	}
	refs := make([]tokenRef, 0, len(rows))
	for _, t := range rows {
		refs = append(refs, tokenRef{ID: t.ID, Name: t.Name, Active: t.Active(time.Now())})
	}
	found, err := resolveToken(refs, ref)
	if err != nil {
		return nil, err
	}
	return st.RevokeToken(ctx, found.ID, "")
}
