package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// retryCluster asks the controller to try a Failed cluster again from the
// step that failed: a provisioned cluster's plugin Provision (for the same
// cluster ID, so the plugin resumes what it made), a connected cluster's
// access check, or the shared pipeline's step. A failed teardown is asked
// again through teardown, not here.
func (s *server) retryCluster(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCluster(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	if row.Source == store.SourceSelfRegistered {
		return problem(http.StatusConflict, "cluster %q registered itself: it has no HostCluster for KubeOpera to retry; fix it where it runs", row.Name)
	}
	o, err := s.registry.Retry(ctx, row.ID)
	if err != nil {
		return requestProblem(row, "retried", err)
	}
	return c.Status(http.StatusAccepted).JSON(lifecycleResponse{ID: row.ID, Name: row.Name, Status: o.Phase,
		Message: "retry requested: the controller starts the step that failed again"})
}
