package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/ochestra-tech/kubeopera/sdk"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the KubeOpera version, SDK version and plugin protocol",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "kubeopera %s (sdk %s, plugin protocol kubeopera.provider.v%d, %s)\n",
				version, sdk.Version, sdk.ProtocolVersion, runtime.Version())
		},
	}
}
