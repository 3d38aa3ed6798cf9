package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

// userAction is a users subcommand that changes one user.
type userAction struct {
	use, short string
	run        func(ctx context.Context, b userAdmin, u apiclient.User) (string, error)
}

var userActions = []userAction{
	{"disable USER", "Disable a user: their sessions end and their tokens are revoked at once",
		func(ctx context.Context, b userAdmin, u apiclient.User) (string, error) {
			return fmt.Sprintf("disabled user %q; their sessions ended and their tokens are revoked", u.Username), b.setDisabled(ctx, u.Id, true)
		}},
	{"enable USER", "Enable a disabled user (tokens revoked by the disable stay revoked)",
		func(ctx context.Context, b userAdmin, u apiclient.User) (string, error) {
			return fmt.Sprintf("enabled user %q", u.Username), b.setDisabled(ctx, u.Id, false)
		}},
	{"delete USER", "Delete a user: their sessions end and their tokens are revoked at once",
		func(ctx context.Context, b userAdmin, u apiclient.User) (string, error) {
			return fmt.Sprintf("deleted user %q", u.Username), b.remove(ctx, u.Id)
		}},
	{"reset-password USER", "Give a user a generated password, printed once, which they must replace at the next sign-in",
		func(ctx context.Context, b userAdmin, u apiclient.User) (string, error) {
			password, err := b.resetPassword(ctx, u.Id)
			return password, err
		}},
	{"end-sessions USER", "End every session of a user and revoke their login tokens",
		func(ctx context.Context, b userAdmin, u apiclient.User) (string, error) {
			n, err := b.endSessions(ctx, u.Id)
			return fmt.Sprintf("ended %d sessions of user %q and revoked %d tokens", n.SessionsEnded, u.Username, n.TokensRevoked), err
		}},
}

func newUserActionCommand(c *conn, a userAction) *cobra.Command {
	var cfg serve.Config
	cmd := &cobra.Command{
		Use: a.use, Short: a.short, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withUsers(cmd, c, cfg, func(b userAdmin) error {
				u, err := findUser(cmd.Context(), b, args[0])
				if err != nil {
					return err
				}
				out, err := a.run(cmd.Context(), b, u)
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), out)
				if cmd.Name() == "reset-password" {
					fmt.Fprintf(cmd.ErrOrStderr(), "reset the password of user %q: the password above is shown only this once; "+
						"they choose a new one at the next sign-in, and their sessions and tokens have ended\n", u.Username)
				}
				return nil
			})
		},
	}
	serverFlags(cmd, &cfg)
	return cmd
}

func newUserTokensCommand(c *conn) *cobra.Command {
	var cfg serve.Config
	cmd := &cobra.Command{
		Use: "tokens USER", Short: "List a user's login tokens (never the tokens themselves)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withUsers(cmd, c, cfg, func(b userAdmin) error {
				u, err := findUser(cmd.Context(), b, args[0])
				if err != nil {
					return err
				}
				items, err := b.tokens(cmd.Context(), u.Id)
				if err != nil {
					return err
				}
				return emit(cmd.OutOrStdout(), c.output, items, func(w *tabwriter.Writer, _ bool) {
					fmt.Fprintln(w, "ID\tNAME\tCREATED\tLAST USED\tEXPIRES\tSTATE")
					for _, t := range items {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", t.Id, t.Name, stamp(&t.CreatedAt), stamp(t.LastUsedAt), stamp(t.ExpiresAt), tokenState(t))
					}
				})
			})
		},
	}
	serverFlags(cmd, &cfg)
	return cmd
}

func newUserRevokeTokenCommand(c *conn) *cobra.Command {
	var cfg serve.Config
	cmd := &cobra.Command{
		Use: "revoke-token USER TOKEN_ID", Short: "Revoke one login token of a user, by ID", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withUsers(cmd, c, cfg, func(b userAdmin) error {
				u, err := findUser(cmd.Context(), b, args[0])
				if err != nil {
					return err
				}
				if err := b.revokeToken(cmd.Context(), u.Id, args[1]); err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "revoked token %s of user %q\n", args[1], u.Username)
				return nil
			})
		},
	}
	serverFlags(cmd, &cfg)
	return cmd
}
