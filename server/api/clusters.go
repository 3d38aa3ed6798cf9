package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// clusterList is GET /clusters. HostRegistered tells the dashboard whether
// to show Get Started: it is false until a host cluster row exists, however
// many other clusters are connected.
type clusterList struct {
	Items          []clusterView `json:"items"`
	HostRegistered bool          `json:"hostRegistered"`
}

func (s *server) listClusters(c *fiber.Ctx) error {
	rows, err := s.store.ListClusters(c.UserContext())
	if err != nil {
		return err
	}
	rows = s.syncOnRead(c, rows)
	out := clusterList{Items: make([]clusterView, 0, len(rows))}
	for _, r := range rows {
		out.Items = append(out.Items, view(r))
		out.HostRegistered = out.HostRegistered || r.IsHost
	}
	return c.JSON(out)
}

func (s *server) getCluster(c *fiber.Ctx) error {
	row, err := s.store.GetCluster(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	rows := s.syncOnRead(c, []store.Cluster{*row})
	v := view(rows[0])
	if row.Source == store.SourceSelfRegistered && s.inspector != nil {
		nodes, err := s.inspector.Nodes(c.UserContext())
		if err != nil {
			v.NodesError = "could not read the nodes: " + federation.Reason(err)
		} else {
			v.Nodes = nodes
		}
	}
	return c.JSON(v)
}

// syncOnRead merges the live phase and message of every HostCluster into
// rows with one List call, writes back only the rows that changed, and
// returns the merged rows. When the management cluster cannot be read the
// stored rows are served as they are: a read never fails for it.
func (s *server) syncOnRead(c *fiber.Ctx, rows []store.Cluster) []store.Cluster {
	if !s.sync || len(rows) == 0 {
		return rows
	}
	observed, err := s.registry.List(c.UserContext())
	if err != nil {
		s.log.Warn("sync-on-read skipped: cannot list HostClusters", "error", err, "request_id", requestID(c))
		return rows
	}
	var changed []store.StatusUpdate
	for i := range rows {
		o, ok := observed[rows[i].ID]
		if !ok || o.Phase == "" || (o.Phase == rows[i].Status && o.Message == rows[i].Message) {
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
	return rows
}

// deleteCluster disconnects: it deletes the HostCluster (whose finalizer
// cleans up on the target) and then the row. A self-registered cluster has
// no HostCluster.
func (s *server) deleteCluster(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCluster(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	if row.Source != store.SourceSelfRegistered {
		if err := s.registry.Delete(ctx, row.ID); err != nil {
			return problem(http.StatusBadGateway, "could not delete HostCluster %s on the management cluster: %v; retry", row.ID, err)
		}
	}
	if err := s.store.DeleteCluster(ctx, row.ID); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
