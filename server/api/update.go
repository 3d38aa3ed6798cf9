package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// updateRequest is PATCH /clusters/{id}: the desired shape of a
// provisioned cluster (day 2). A field left out keeps what the cluster
// has; the provisioning inputs stay the record of the original request.
type updateRequest struct {
	// NodeCount is the desired number of worker nodes (the plugin's
	// "scale" capability; bounded by its node-count input).
	NodeCount *int `json:"nodeCount,omitempty"`
	// KubernetesVersion is the desired version (the plugin's "upgrade"
	// capability; one minor version at a time, never down).
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
}

// updateCluster checks the change against the cluster's plugin before
// anything is written (409 with the reason when the plugin cannot make
// it, 422 for a bad value), then sets the HostCluster's desired fields;
// the controller runs one Update of the plugin, shown as phase Updating.
func (s *server) updateCluster(c *fiber.Ctx) error {
	ctx := c.UserContext()
	row, err := s.store.GetCluster(ctx, c.Params("id"))
	if err != nil {
		return err
	}
	var req updateRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.NodeCount == nil && req.KubernetesVersion == "" {
		return invalid(FieldProblem{"nodeCount", "give nodeCount, kubernetesVersion or both: the cluster's desired shape"})
	}
	if !provisioned(row) || row.Plugin == "" {
		return coded(CodeNotProvisioned, problem(http.StatusConflict, "cluster %q was not provisioned by KubeOpera, so KubeOpera cannot scale or upgrade it: change it where it was made", row.Name))
	}
	p, err := s.providers.Provider(row.Plugin)
	if err != nil {
		return coded(CodePluginNotLoaded, problem(http.StatusConflict, "cluster %q: its provider plugin %s is not loaded, so nothing can change it", row.Name, row.Plugin))
	}
	info, err := p.GetInfo(ctx)
	if err != nil {
		return pluginProblem(row.Plugin, err)
	}
	if err := checkUpdate(info, row, req); err != nil {
		return err
	}
	o, err := s.registry.Update(ctx, row.ID, req.NodeCount, req.KubernetesVersion)
	if err != nil {
		return requestProblem(row, "changed", err)
	}
	return c.Status(http.StatusAccepted).JSON(lifecycleResponse{ID: row.ID, Name: row.Name, Status: o.Phase, Message: o.Message})
}

// checkUpdate asks the SDK what the plugin's Info allows: a capability it
// lacks is a conflict (409, the reason said), a value outside its bounds
// or upgrade paths a bad value (422, on the field).
func checkUpdate(info sdk.Info, row *store.Cluster, req updateRequest) error {
	var errs []error
	if req.NodeCount != nil {
		errs = append(errs, sdk.CheckNodeCount(info, *req.NodeCount))
	}
	if req.KubernetesVersion != "" {
		errs = append(errs, sdk.CheckUpgrade(info, row.KubernetesVersion, req.KubernetesVersion))
	}
	var fields []FieldProblem
	for _, err := range errs {
		switch sdk.KindOf(err) {
		case "":
		case sdk.KindUnimplemented:
			return coded(CodeNotSupported, problem(http.StatusConflict, "cluster %q cannot be changed so: %v", row.Name, err))
		default:
			for _, f := range sdk.FieldErrors(err) {
				fields = append(fields, FieldProblem{Field: f.Field, Message: f.Message})
			}
		}
	}
	if len(fields) > 0 {
		p := invalid(fields...) // well-formed, but a value the plugin cannot take
		p.Status, p.Title = http.StatusUnprocessableEntity, http.StatusText(http.StatusUnprocessableEntity)
		return p
	}
	return nil
}

// provisioned: KubeOpera made the cluster through a provider plugin, so it
// can change it and tear it down.
func provisioned(row *store.Cluster) bool {
	return row.Source == store.SourceProvisioned || row.Source == store.SourceProvisionedVanilla || row.Source == store.SourceProvisionedEKS
}
