package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
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
	cmd.AddCommand(create)
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
