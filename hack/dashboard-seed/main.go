// Command dashboard-seed fills a server's database with clusters for the
// dashboard's render benchmark (make bench-web): -n rows in a mix of
// phases, as a fleet mid-rollout would show.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ochestra-tech/kubeopera/server/store"
)

func main() {
	dataDir := flag.String("data-dir", "data", "the server's data directory (SQLite database kubeopera.db)")
	n := flag.Int("n", 1000, "clusters to add")
	flag.Parse()
	if err := seed(context.Background(), filepath.Join(*dataDir, "kubeopera.db"), *n); err != nil {
		fmt.Fprintln(os.Stderr, "dashboard-seed:", err)
		os.Exit(1)
	}
}

func seed(ctx context.Context, dsn string, n int) error {
	if err := os.MkdirAll(filepath.Dir(dsn), 0o700); err != nil {
		return err
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	phases := []string{"Ready", "Provisioning", "BootstrappingFlux", "Failed", "ValidatingAccess"}
	for i := range n {
		phase := phases[i%len(phases)]
		c := &store.Cluster{Name: fmt.Sprintf("bench-%04d", i), Provider: "aws", Region: "eu-north-1",
			Source: store.SourceConnectedExisting, Status: phase, Message: "phase " + phase + " (seeded for the benchmark)",
			KubernetesVersion: "v1.37.2", NodeCount: 3, ReadyNodeCount: i % 4}
		if err := st.CreateCluster(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
