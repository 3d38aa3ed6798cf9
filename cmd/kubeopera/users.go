package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/internal/apiclient"
	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

func newUsersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage the people who sign in: through the API as a platform admin, or with --data-dir/--database on the server's database (break-glass)"}
	conn := &conn{}
	apiFlags(cmd, conn)
	cmd.AddCommand(newUsersCreateCommand(conn), newUsersListCommand(conn), newUsersUnlockCommand())
	for _, a := range userActions {
		cmd.AddCommand(newUserActionCommand(conn, a))
	}
	cmd.AddCommand(newUserTokensCommand(conn), newUserRevokeTokenCommand(conn))
	return cmd
}

// withUsers runs fn with the users backend the flags choose: the server's
// database with --data-dir/--database (or their environment variables),
// otherwise the API.
func withUsers(cmd *cobra.Command, c *conn, cfg serve.Config, fn func(userAdmin) error) error {
	if !viaDatabase(cmd) {
		cl, err := c.client()
		if err != nil {
			return err
		}
		return fn(apiUsers{cl})
	}
	st, err := serve.OpenStore(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(localUsers{st: st, cmd: cmd})
}

// findUser returns the user whose ID or username is ref.
func findUser(ctx context.Context, b userAdmin, ref string) (apiclient.User, error) {
	users, err := b.list(ctx)
	if err != nil {
		return apiclient.User{}, err
	}
	for _, u := range users {
		if u.Id == ref || u.Username == ref {
			return u, nil
		}
	}
	return apiclient.User{}, &exitError{code: exitNotFound, err: fmt.Errorf("no user named %q or with that ID ('kubeopera users list')", ref)}
}

func newUsersCreateCommand(c *conn) *cobra.Command {
	var (
		cfg                   serve.Config
		username, email, role string
		passwordStdin         bool
	)
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a user",
		Long: "Create a user who signs in with a username and password. With --password-stdin the\n" +
			"password is the first line of standard input; otherwise a random one is generated and\n" +
			"printed once to stdout. Through the API the user chooses a new password at the first\n" +
			"sign-in. Only a bcrypt hash is stored.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			password := ""
			if passwordStdin {
				var err error
				if password, err = readPassword(cmd, bufio.NewReader(cmd.InOrStdin()), true); err != nil {
					return err
				}
			}
			return withUsers(cmd, c, cfg, func(b userAdmin) error {
				u, generated, err := b.create(cmd.Context(), username, email, role, password)
				if err != nil {
					return err
				}
				if generated != "" {
					fmt.Fprintln(cmd.OutOrStdout(), generated)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "created %s user %q (%s)", u.Role, u.Username, u.Id)
				if generated != "" {
					fmt.Fprint(cmd.ErrOrStderr(), "; the generated password above is shown only this once")
				}
				fmt.Fprintln(cmd.ErrOrStderr())
				return nil
			})
		},
	}
	serverFlags(cmd, &cfg)
	cmd.Flags().StringVar(&username, "username", "", "sign-in name: lowercase letters, digits and '-' (required)")
	cmd.Flags().StringVar(&email, "email", "", "email address (required)")
	cmd.Flags().StringVar(&role, "role", "viewer", "platform-admin or viewer")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password (at least 16 characters) from standard input")
	return cmd
}

func newUsersListCommand(c *conn) *cobra.Command {
	var cfg serve.Config
	cmd := &cobra.Command{
		Use: "list", Short: "List users: role, state, whether they must choose a new password", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withUsers(cmd, c, cfg, func(b userAdmin) error {
				users, err := b.list(cmd.Context())
				if err != nil {
					return err
				}
				return emit(cmd.OutOrStdout(), c.output, users, func(w *tabwriter.Writer, _ bool) {
					fmt.Fprintln(w, "ID\tUSERNAME\tEMAIL\tROLE\tSTATE\tCREATED")
					for _, u := range users {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", u.Id, u.Username, u.Email, u.Role, userState(u), stamp(&u.CreatedAt))
					}
				})
			})
		},
	}
	serverFlags(cmd, &cfg)
	return cmd
}

func userState(u apiclient.User) string {
	var parts []string
	if u.SuperAdmin {
		parts = append(parts, "super-admin")
	}
	if u.Disabled {
		parts = append(parts, "disabled")
	} else {
		parts = append(parts, "enabled")
	}
	if u.MustChangePassword {
		parts = append(parts, "must change password")
	}
	return strings.Join(parts, ", ")
}

func newUsersUnlockCommand() *cobra.Command {
	var (
		c       serve.Config
		address string
	)
	cmd := &cobra.Command{
		Use:   "unlock [USERNAME]",
		Short: "Clear the failed sign-ins of an account or of a client address",
		Long: "Sign-in attempts are counted per account and address, per address, and per account (whose\n" +
			"attempts past the first few are spaced by growing delays for addresses that failed on it);\n" +
			"an IPv6 address counts as its /64. `unlock USERNAME` clears the account's counts from every\n" +
			"address and device; `unlock --address IP` clears an address's (an IPv6 address: its /64)\n" +
			"counts for every account.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == (address != "") {
				return fmt.Errorf("name either a USERNAME or --address IP")
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			var n int
			what, target := "address "+address, address
			if address != "" {
				n, err = api.UnlockAddress(cmd.Context(), st, address)
			} else {
				what, target = fmt.Sprintf("user %q", args[0]), args[0]
				n, err = api.UnlockAccount(cmd.Context(), st, args[0])
			}
			if err != nil {
				return err
			}
			if err := auditCLI(cmd.Context(), cmd, st, target, http.StatusOK); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "unlocked %s (%d sign-in counters cleared)\n", what, n)
			return nil
		},
	}
	serverFlags(cmd, &c)
	cmd.Flags().StringVar(&address, "address", "", "client IP address to unlock instead of a user")
	return cmd
}

// generatePassword is a random password: 144 bits, 24 characters.
func generatePassword() string {
	b := make([]byte, 18)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
