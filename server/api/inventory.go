package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// hostInventoryEvery is how old the self-registered host row's inventory
// may get before a read refreshes it from the cluster the server runs in.
var hostInventoryEvery = 3 * time.Minute

// hostInspectTimeout bounds that refresh, so a read stays quick.
const hostInspectTimeout = 5 * time.Second

// refreshHost reads the host cluster's Kubernetes version and node counts
// into its self-registered row when they are older than hostInventoryEvery.
// It has no HostCluster, so nothing else refreshes them. A failure keeps
// the stored values.
func (s *server) refreshHost(c *fiber.Ctx, rows []store.Cluster) {
	if s.inspector == nil {
		return
	}
	for i := range rows {
		r := &rows[i]
		if r.Source != store.SourceSelfRegistered || time.Since(r.UpdatedAt) < hostInventoryEvery {
			continue
		}
		ctx, cancel := context.WithTimeout(c.UserContext(), hostInspectTimeout)
		inv, err := s.inspector.Inspect(ctx)
		cancel()
		if err != nil {
			s.log.Warn("host inventory not refreshed", "error", err, "request_id", requestID(c))
			return
		}
		if r.ClusterUID != nil && inv.ClusterUID != *r.ClusterUID {
			continue // the server now runs in another cluster: not this row's
		}
		r.KubernetesVersion, r.NodeCount, r.ReadyNodeCount = inv.KubernetesVersion, inv.NodeCount, inv.ReadyNodeCount
		r.UpdatedAt = time.Now()
		if err := s.store.UpdateInventory(c.UserContext(), r.ID, inv.KubernetesVersion, inv.NodeCount, inv.ReadyNodeCount); err != nil {
			s.log.Warn("host inventory write-back failed; served live values", "error", err, "request_id", requestID(c))
		}
	}
}
