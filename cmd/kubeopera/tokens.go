package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func newTokensCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "tokens", Short: "Manage API tokens"}
	var (
		c          serve.Config
		role, name string
	)
	create := &cobra.Command{
		Use:   "create",
		Short: "Create an API token and print it once",
		Long:  "Create an API token with a role in the server's database and print it once to stdout;\nonly its hash is stored, so it cannot be shown again.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := api.ParseRole(role)
			if err != nil {
				return fmt.Errorf("--role: %w", err)
			}
			if name == "" {
				return fmt.Errorf("--name is required: it names the token in logs and audit")
			}
			st, err := serve.OpenStore(cmd.Context(), c)
			if err != nil {
				return err
			}
			defer st.Close()
			token, hash := api.NewToken()
			if err := st.CreateToken(cmd.Context(), &store.Token{Name: name, Role: string(r), Hash: hash}); err != nil {
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
	cmd.AddCommand(create)
	return cmd
}
