package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func (s *server) getCluster(c *fiber.Ctx) error {
	row, err := s.store.GetCluster(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	rows := s.syncOnRead(c, []store.Cluster{*row})
	if len(rows) == 0 { // its disconnect or teardown just finished
		return fmt.Errorf("cluster %q: %w", row.Name, store.ErrNotFound)
	}
	return c.JSON(s.describe(c, rows[0]))
}

// deleteCluster disconnects: it deletes the HostCluster, whose finalizer
// cleans up on the target, and answers 202 with the phase the live object
// then derives to (Deleting); the row goes once the HostCluster is gone
// (see syncOnRead). A self-registered cluster, one on a server without a
// management cluster, or one whose HostCluster went at once, has nothing
// to wait for: its row goes at once (204). A provisioned cluster whose
// cloud operation still runs cannot be disconnected (409).
func (s *server) deleteCluster(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCluster(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	live := s.syncOnRead(c, []store.Cluster{*row})
	if len(live) == 0 {
		return fmt.Errorf("cluster %q: %w", row.Name, store.ErrNotFound)
	}
	row = &live[0]
	msg, refused := disconnectAllowed(row)
	if refused != nil && row.Source != store.SourceSelfRegistered {
		return refused
	}
	if row.Source != store.SourceSelfRegistered {
		if err := s.registry.Delete(ctx, row.ID); err != nil {
			return problem(http.StatusBadGateway, "could not delete HostCluster %s on the management cluster: %v; retry", row.ID, err)
		}
	}
	_, unmanaged := s.registry.(hostclusters.Unconfigured)
	if !unmanaged && s.sync && row.Source != store.SourceSelfRegistered {
		observed, err := s.observeRows(c, []store.Cluster{*row})
		if o, ok := observed[row.ID]; err != nil || ok {
			phase := o.Phase
			if err != nil {
				phase = string(v1alpha1.PhaseDeleting) // the delete was accepted; the cache could not be read
			}
			return c.Status(http.StatusAccepted).JSON(lifecycleResponse{ID: row.ID, Name: row.Name, Status: phase, Message: msg})
		}
	}
	if err := s.store.DeleteCluster(ctx, row.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
