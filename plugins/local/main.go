// Command kubeopera-provider-local provisions development clusters on the
// machine it runs on, from the sandbox binaries `make testbin` builds: a
// real etcd and kube-apiserver, the controller manager and scheduler, and
// kwok's simulated nodes, so Deployments become Available. It is for
// development and tests, never for production: the clusters run no
// containers and die with the machine.
//
// Settings (environment): KUBEOPERA_LOCAL_CLUSTERS_DIR, where the clusters
// live (default data/local-clusters under the working directory), and
// KUBEOPERA_TESTBIN_DIR, the sandbox binaries (default bin/k8s/<version>
// next to the plugin directory, else in the repository).
package main

import (
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/sdk/localcloud"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

func main() {
	// Provision runs this binary again, detached, to boot a cluster, so the
	// start survives the plugin.
	localcloud.RunStarter()
	sdk.Serve(provider{})
}
