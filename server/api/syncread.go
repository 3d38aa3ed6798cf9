package api

import (
	"errors"
	"strings"

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
		if o.Phase == "" || (o.Phase == rows[i].Status && o.Message == rows[i].Message) || sticky(rows[i].Status, o) {
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

// dropFinished removes the rows of clusters whose disconnect or teardown
// finished (their HostCluster is gone) and returns the others.
func (s *server) dropFinished(c *fiber.Ctx, rows []store.Cluster, observed map[string]hostclusters.Observed) []store.Cluster {
	out := rows[:0]
	for _, r := range rows {
		_, exists := observed[r.ID]
		ending := strings.EqualFold(r.Status, string(v1alpha1.PhaseDeleting)) || strings.EqualFold(r.Status, string(v1alpha1.PhaseTearingDown))
		if exists || !ending || r.Source == store.SourceSelfRegistered {
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

// syncInventory copies the controller's live inventory into row and
// reports whether it changed (the caller writes the changed rows back).
func syncInventory(row *store.Cluster, o hostclusters.Observed) bool {
	if o.KubernetesVersion == "" || (o.KubernetesVersion == row.KubernetesVersion && o.NodeCount == row.NodeCount && o.ReadyNodeCount == row.ReadyNodeCount) {
		return false
	}
	row.KubernetesVersion, row.NodeCount, row.ReadyNodeCount = o.KubernetesVersion, o.NodeCount, o.ReadyNodeCount
	return true
}

// sticky reports whether a row's Deleting or TearingDown status, which the
// API set, must stay although the controller has not reported it yet: a
// disconnect cannot be undone, and a teardown ends only by failing. So
// must the status of a retry the controller has not taken up yet: until
// then its HostCluster still reads Failed.
func sticky(rowStatus string, o hostclusters.Observed) bool {
	switch {
	case o.RetryPending:
		return o.Phase == string(v1alpha1.PhaseFailed)
	case strings.EqualFold(rowStatus, string(v1alpha1.PhaseDeleting)):
		return o.Phase != string(v1alpha1.PhaseDeleting)
	case strings.EqualFold(rowStatus, string(v1alpha1.PhaseTearingDown)):
		return o.Phase != string(v1alpha1.PhaseTearingDown) && (o.Phase != string(v1alpha1.PhaseFailed) || o.TeardownPending)
	}
	return false
}
