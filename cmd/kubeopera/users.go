package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

func newUsersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage the people who sign in to the dashboard"}
	var (
		c                     serve.Config
		username, email, role string
		passwordStdin         bool
	)
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a dashboard user",
		Long: "Create a user who signs in to the dashboard with a username and password. With\n" +
			"--password-stdin the password is the first line of standard input; otherwise a random\n" +
			"one is generated and printed once to stdout. Only a bcrypt hash is stored.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			password, generated, err := userPassword(cmd, passwordStdin)
			if err != nil {
				return err
			}
			u, err := api.NewUser(username, email, password, api.Role(role))
			if err != nil {
				return fmt.Errorf("cannot create user: %w", err)
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.CreateUser(cmd.Context(), u); err != nil {
				return err
			}
			if err := auditCLI(cmd.Context(), cmd, st, u.ID, http.StatusCreated); err != nil {
				return err
			}
			if generated {
				fmt.Fprintln(cmd.OutOrStdout(), password)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "created %s user %q", role, username)
			if generated {
				fmt.Fprint(cmd.ErrOrStderr(), "; the generated password above is shown only this once")
			}
			fmt.Fprintln(cmd.ErrOrStderr())
			return nil
		},
	}
	serverFlags(create, &c)
	create.Flags().StringVar(&username, "username", "", "sign-in name: lowercase letters, digits and '-' (required)")
	create.Flags().StringVar(&email, "email", "", "email address (required)")
	create.Flags().StringVar(&role, "role", "viewer", "platform-admin or viewer")
	create.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password (at least 16 characters) from standard input")
	cmd.AddCommand(create, newUsersUnlockCommand())
	return cmd
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

// userPassword reads the password from stdin, or generates one.
func userPassword(cmd *cobra.Command, fromStdin bool) (password string, generated bool, err error) {
	if !fromStdin {
		b := make([]byte, 18)
		_, _ = rand.Read(b)
		return base64.RawURLEncoding.EncodeToString(b), true, nil
	}
	line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if err != nil && line == "" {
		return "", false, fmt.Errorf("--password-stdin: no password on standard input")
	}
	return strings.TrimRight(line, "\r\n"), false, nil
}
