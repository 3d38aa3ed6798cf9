package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
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
	if !strings.EqualFold(row.Status, string(v1alpha1.PhaseFailed)) {
		return problem(http.StatusConflict, "cluster %q is %s, not Failed: only a Failed cluster is retried", row.Name, row.Status)
	}
	if row.Source == store.SourceSelfRegistered {
		return problem(http.StatusConflict, "cluster %q registered itself: it has no HostCluster for KubeOpera to retry; fix it where it runs", row.Name)
	}
	if err := s.registry.Retry(ctx, row.ID); err != nil {
		switch {
		case errors.Is(err, hostclusters.ErrNotConfigured):
			return problem(http.StatusServiceUnavailable, "%v", err)
		case errors.Is(err, hostclusters.ErrNoHostCluster):
			return problem(http.StatusConflict, "cluster %q has no HostCluster on the management cluster, so nothing can retry it", row.Name)
		case errors.Is(err, hostclusters.ErrTeardownFailed):
			return problem(http.StatusConflict, "cluster %q failed to tear down: ask for the teardown again (POST /api/v1/clusters/%s/teardown)", row.Name, row.ID)
		}
		return problem(http.StatusBadGateway, "could not request a retry of %q on the management cluster: %v; retry", row.Name, err)
	}
	msg := "retry requested: the controller starts the step that failed again"
	if err := s.store.UpdateStatuses(ctx, []store.StatusUpdate{{ID: row.ID, Status: string(v1alpha1.PhasePending), Message: msg}}); err != nil {
		return err
	}
	return c.Status(http.StatusAccepted).JSON(lifecycleResponse{ID: row.ID, Name: row.Name, Status: string(v1alpha1.PhasePending), Message: msg})
}
