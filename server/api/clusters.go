package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

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
			v.NodesError = "could not read the nodes: " + err.Error()
		} else {
			v.Nodes = nodes
		}
	}
	return c.JSON(v)
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
