// Command kubeopera-provider-gcp-stub lists GCP as coming soon.
package main

import (
	"github.com/ochestra-tech/kubeopera/plugins/internal/soon"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	sdk.Serve(soon.New(sdk.Info{
		Name:          "gcp-stub",
		DisplayName:   "Google Cloud (GKE)",
		Cloud:         "gcp",
		Topologies:    []string{"gke"},
		PluginVersion: version,
	}, "GCP"))
}
