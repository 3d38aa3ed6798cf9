package api

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// syncOnRead merges the live phase and message of each row's HostCluster
// into rows, writes back only the rows that changed, and returns the merged
// rows. It looks up just these rows' HostClusters when the registry can
// (a page costs the same in a fleet of any size), else lists them all. When
// the management cluster cannot be read the stored rows are served as they
// are: a read never fails for it.
func (s *server) syncOnRead(c *fiber.Ctx, rows []store.Cluster) []store.Cluster {
	if !s.sync || len(rows) == 0 {
		return rows
	}
	s.refreshHost(c, rows)
	observed, err := s.observeRows(c, rows)
	if err != nil {
		s.log.Warn("sync-on-read skipped: cannot list HostClusters", "error", err, "request_id", requestID(c))
		return rows
	}
	rows = s.dropFinished(c, rows, observed)
	var changed []store.StatusUpdate
	var inventory []store.InventoryUpdate
	for i := range rows {
		o, ok := observed[rows[i].ID]
		if !ok {
			continue
		}
		if syncInventory(&rows[i], o) {
			inventory = append(inventory, store.InventoryUpdate{ID: rows[i].ID, KubernetesVersion: o.KubernetesVersion,
				NodeCount: o.NodeCount, ReadyNodeCount: o.ReadyNodeCount})
		}
		if o.Phase == "" || (o.Phase == rows[i].Status && o.Message == rows[i].Message) {
			continue
		}
		rows[i].Status, rows[i].Message = o.Phase, o.Message
		changed = append(changed, store.StatusUpdate{ID: rows[i].ID, Status: o.Phase, Message: o.Message})
	}
	if len(changed) > 0 {
		if err := s.store.UpdateStatuses(c.UserContext(), changed); err != nil {
			s.log.Warn("sync-on-read: write-back failed; served live values", "error", err, "request_id", requestID(c))
		}
	}
	if len(inventory) > 0 {
		if err := s.store.UpdateInventories(c.UserContext(), inventory); err != nil {
			s.log.Warn("sync-on-read: inventory write-back failed; served live values", "error", err, "request_id", requestID(c))
		}
	}
	return rows
}

// observeRows returns the observed state of rows' HostClusters.
func (s *server) observeRows(c *fiber.Ctx, rows []store.Cluster) (map[string]hostclusters.Observed, error) {
	o, ok := s.registry.(hostclusters.Observer)
	if !ok {
		return s.registry.List(c.UserContext())
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	return o.Observe(c.UserContext(), ids)
}

// dropFinished removes the rows whose HostCluster the management cluster
// says is gone and that hostclusters.Orphaned lets go: a disconnect or
// teardown that finished, or a row a crash left without its HostCluster
// past the hand-over grace. Only rows the controller last reported as
// ending (Deleting, TearingDown) or never reported on are removed here; a
// row that lost its HostCluster otherwise is left to the controller's
// repair sweep, which guards against a server pointed at the wrong
// management cluster. The live check runs only for rows the cache lacks.
func (s *server) dropFinished(c *fiber.Ctx, rows []store.Cluster, observed map[string]hostclusters.Observed) []store.Cluster {
	out := rows[:0]
	now := time.Now()
	for _, r := range rows {
		if _, exists := observed[r.ID]; exists || !endingOrNew(r.Status) ||
			!hostclusters.Orphaned(r.Source == store.SourceSelfRegistered, r.Status, r.CreatedAt, now) {
			out = append(out, r)
			continue
		}
		if there, err := s.registry.Exists(c.UserContext(), r.ID); err != nil || there {
			out = append(out, r)
			continue
		}
		if err := s.store.DeleteCluster(c.UserContext(), r.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("sync-on-read: could not remove the row of a removed cluster", "cluster", r.ID, "error", err, "request_id", requestID(c))
			out = append(out, r)
		}
	}
	return out
}

// endingOrNew: the controller last reported the cluster as going away,
// or has not reported on it at all.
func endingOrNew(status string) bool {
	switch v1alpha1.Phase(status) {
	case v1alpha1.PhaseDeleting, v1alpha1.PhaseTearingDown, v1alpha1.PhasePending, "":
		return true
	}
	return false
}

// syncInventory copies the controller's live inventory into row and
// reports whether it changed (the caller writes the changed rows back).
func syncInventory(row *store.Cluster, o hostclusters.Observed) bool {
	if o.KubernetesVersion == "" || (o.KubernetesVersion == row.KubernetesVersion && o.NodeCount == row.NodeCount && o.ReadyNodeCount == row.ReadyNodeCount) {
		return false
	}
	row.KubernetesVersion, row.NodeCount, row.ReadyNodeCount = o.KubernetesVersion, o.NodeCount, o.ReadyNodeCount
	return true
}
