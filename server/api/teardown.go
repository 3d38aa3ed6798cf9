package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// teardownRequest is POST /clusters/{id}/teardown: the cluster's name,
// repeated as confirmation that its cloud resources may be destroyed.
type teardownRequest struct {
	ConfirmName string `json:"confirmName" jsonschema:"required"`
}

// lifecycleResponse answers a disconnect or a teardown: the cluster's new
// status and what happens next, for a person.
type lifecycleResponse struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// teardownCluster asks the controller to destroy a provisioned cluster's
// cloud resources through its plugin; the row stays, in phase TearingDown,
// until they are gone. Asking again retries a teardown that failed.
func (s *server) teardownCluster(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCluster(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	var req teardownRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.ConfirmName != row.Name {
		return invalid(FieldProblem{"confirmName", fmt.Sprintf("repeat the cluster's name %q to confirm that its cloud resources are destroyed", row.Name)})
	}
	if !provisioned(row) {
		return coded(CodeNotProvisioned, problem(http.StatusConflict, "cluster %q was not provisioned by KubeOpera, so KubeOpera cannot destroy it: disconnect it instead (DELETE /api/v1/clusters/%s)", row.Name, row.ID))
	}
	if why := s.pluginInfo(row.Plugin).lacks(sdk.CapDestroy, "destroy a cluster"); why != "" {
		return coded(CodeNotSupported, problem(http.StatusConflict, "cluster %q cannot be torn down: %s; disconnect it instead and delete its resources in the cloud", row.Name, why))
	}
	o, err := s.registry.Teardown(ctx, row.ID)
	if err != nil {
		return requestProblem(row, "torn down", err)
	}
	return c.Status(http.StatusAccepted).JSON(lifecycleResponse{ID: row.ID, Name: row.Name, Status: o.Phase, Message: o.Message})
}

// requestProblem answers a request (teardown, retry, change) the
// management cluster refused or could not take: 409 with the reason when
// the cluster's state refused it, 503 without a management cluster, 502
// when it could not be reached.
func requestProblem(row *store.Cluster, what string, err error) error {
	var refused *hostclusters.RefusedError
	switch {
	case errors.Is(err, hostclusters.ErrNotConfigured):
		return problem(http.StatusServiceUnavailable, "%v", err)
	case errors.Is(err, hostclusters.ErrNoHostCluster):
		return coded(CodeNoHostCluster, problem(http.StatusConflict, "cluster %q cannot be %s: it has no HostCluster on the management cluster "+
			"(a hand-over that did not finish; the row is removed within %s)", row.Name, what, hostclusters.HandOverGrace))
	case errors.Is(err, hostclusters.ErrTeardownFailed):
		return coded(CodeTeardownFailed, problem(http.StatusConflict, "cluster %q failed to tear down: ask for the teardown again (POST /api/v1/clusters/%s/teardown)", row.Name, row.ID))
	case errors.As(err, &refused):
		return coded(CodeNotNow, problem(http.StatusConflict, "cluster %q cannot be %s now: %s", row.Name, what, refused.Reason))
	case errors.Is(err, hostclusters.ErrChanged):
		return coded(CodeChanged, problem(http.StatusConflict, "cluster %q: %v", row.Name, err))
	}
	return problem(http.StatusBadGateway, "could not ask the management cluster for cluster %q to be %s: %v; retry", row.Name, what, err)
}

// provisioningPhases are those in which a provisioned cluster's cloud
// operation is still running: a disconnect then would orphan what it makes.
var provisioningPhases = map[string]bool{"pending": true, "provisioning": true, "tearingdown": true}

// disconnectAllowed answers a disconnect that must not happen now (nil when
// it may), and the message of one that may.
func disconnectAllowed(row *store.Cluster) (string, *Problem) {
	effect, refused := disconnectEffect(row)
	if refused != nil {
		return "", refused
	}
	return "disconnecting: " + effect, nil
}

// disconnectNotice is what a disconnect would do to row now, in the words
// its answer uses (the cluster page shows it before anyone disconnects);
// when a disconnect would be refused, the refusal's own words.
func disconnectNotice(row *store.Cluster) string {
	effect, refused := disconnectEffect(row)
	if refused != nil {
		return refused.Detail
	}
	return effect
}

// disconnectEffect words what a disconnect of row does, or refuses one
// that must not happen now: the one wording of the disconnect answer and
// the cluster page's notice.
func disconnectEffect(row *store.Cluster) (string, *Problem) {
	if strings.EqualFold(row.Status, string(v1alpha1.PhaseDeleting)) {
		return "waiting for the controller to delete KubeOpera's GitRepository and Kustomizations from the cluster", nil
	}
	if row.Source == store.SourceSelfRegistered {
		return "KubeOpera forgets this cluster: its row is removed from the list, and nothing on the cluster is changed", nil
	}
	if !provisioned(row) {
		return "KubeOpera deletes the GitRepository and Kustomizations it made in the cluster's flux-system namespace (they leave what they applied in place) " +
			"and forgets the cluster; Flux's controllers, KubeOpera and your workloads keep running there", nil
	}
	status := strings.ToLower(row.Status)
	if provisioningPhases[status] {
		verb := "provisioned"
		if status == "tearingdown" {
			verb = "torn down"
		}
		return "", problem(http.StatusConflict, "cluster %q is still being %s: a disconnect now would leave its cloud resources running with nothing managing them; "+
			"wait until it is Ready, or tear it down (POST /api/v1/clusters/%s/teardown) to delete them", row.Name, verb, row.ID)
	}
	return "KubeOpera stops managing this cluster, but its cloud infrastructure keeps running and costing money until you delete it in your cloud account; " +
		"to delete it, tear the cluster down instead (POST /api/v1/clusters/" + row.ID + "/teardown)", nil
}
