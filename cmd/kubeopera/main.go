// Command kubeopera is the KubeOpera CLI: the server, the controller and the
// operator commands in one binary.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(exitCodeOf(err))
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "kubeopera",
		Short:         "KubeOpera brings Kubernetes clusters under one platform's management",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newVersionCommand(), newPluginsCommand(), newDevCommand(), newServerCommand(), newTokensCommand(), newControllerCommand(),
		newClustersCommand())
	root.AddCommand(newUsersCommand(), newTeamsCommand())
	root.AddCommand(newAuditCommand())
	root.AddCommand(newBackupCommand())
	root.AddCommand(newLoginCommand(), newLogoutCommand(), newContextCommand(), newProvidersCommand(), newCredentialsCommand())
	explainMissingArgs(root)
	return root
}
