package localcloud

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// StartCommand is the argument that makes a program built on this package
// boot a cluster instead of doing its own work (see RunStarter).
const StartCommand = "start-cluster"

// RootEnv names the directory of the local clusters, when set; the host
// passes it to every plugin, and `kubeopera dev` sets it.
const RootEnv = "KUBEOPERA_LOCAL_CLUSTERS_DIR"

// DefaultRoot is where clusters live: $RootEnv, else data/local-clusters
// under the working directory.
func DefaultRoot() string {
	if d := os.Getenv(RootEnv); d != "" {
		return d
	}
	return filepath.Join("data", "local-clusters")
}

// Starter is the command Create runs, when given none, to boot a cluster:
// this program with StartCommand. Its main must call RunStarter first.
func Starter() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program to start a local cluster with: %w", err)
	}
	return []string{self, StartCommand}, nil
}

// RunStarter boots the cluster and exits when this program was started by
// Create as its starter (its arguments are StartCommand and a cluster's
// directory); otherwise it returns at once. Call it first in main: Create
// starts the program again, detached, so a cluster's start survives the
// call and the plugin process that made it.
func RunStarter() {
	if len(os.Args) != 3 || os.Args[1] != StartCommand {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	err := Boot(ctx, os.Args[2])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start local cluster:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
