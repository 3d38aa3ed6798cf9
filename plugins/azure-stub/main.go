// Command kubeopera-provider-azure-stub lists Azure as coming soon.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/soon"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	sdk.Serve(soon.New(sdk.Info{
		Name:          "azure-stub",
		DisplayName:   "Microsoft Azure (AKS)",
		Cloud:         "azure",
		Topologies:    []string{"aks"},
		PluginVersion: version,
	}, "Azure"))
}
