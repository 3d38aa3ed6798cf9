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
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ochestra-tech/kubeopera/plugins/local/localcluster"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// version is stamped by the Makefile (-X main.version=...).
var version = "dev"

// startCommand makes the binary boot a cluster instead of serving: Provision
// runs it detached, so the start survives the plugin.
const startCommand = "start-cluster"

func main() {
	if len(os.Args) == 3 && os.Args[1] == startCommand {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		if err := localcluster.Boot(ctx, os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "start local cluster:", err)
			os.Exit(1)
		}
		return
	}
	sdk.Serve(provider{})
}
