package k8sproxy

import (
	"context"
	"errors"
	"fmt"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Stored is how the server reaches the clusters it records: the clusters
// table and the fleet's Target (the stored kubeconfig Secret, or the
// server's own access for the self-registered host).
type Stored struct {
	Store *store.Store
	Fleet interface {
		Target(ctx context.Context, row store.Cluster) (federation.Target, bool, error)
	}
}

// Cluster is Clusters.Cluster.
func (s Stored) Cluster(ctx context.Context, id string) (Target, error) {
	row, err := s.Store.GetCluster(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return Target{}, fmt.Errorf("cluster %s: %w", id, ErrNoCluster)
	}
	if err != nil {
		return Target{}, err
	}
	if s.Fleet == nil {
		return Target{}, fmt.Errorf("cluster %s: no management cluster is configured: %w", id, ErrNoCluster)
	}
	t, ok, err := s.Fleet.Target(ctx, *row)
	if err != nil {
		return Target{}, fmt.Errorf("read how to reach cluster %s: %w", row.Name, err)
	}
	if !ok {
		return Target{}, fmt.Errorf("cluster %s: %w", row.Name, ErrNoCluster)
	}
	return Target{Name: row.Name, Config: t.Config}, nil
}
