package api

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/store"
)

type registerSelfRequest struct {
	// Name defaults to "host".
	Name string `json:"name"`
}

// registerSelf records the cluster the server runs in as the host cluster.
// It is idempotent by the kube-system namespace UID: a second call answers
// 200 with the existing row. It never creates a HostCluster.
func (s *server) registerSelf(c *fiber.Ctx) error {
	var r registerSelfRequest
	if len(c.Body()) > 0 {
		if err := bindJSON(c, &r); err != nil {
			return err
		}
	}
	if r.Name == "" {
		r.Name = "host"
	}
	if err := collect(checkName("name", r.Name)); err != nil {
		return err
	}
	if s.inspector == nil {
		return problem(http.StatusServiceUnavailable, "this server cannot see the cluster it runs in: run it in a cluster with its "+
			"ServiceAccount, or start it with --self-kubeconfig")
	}
	ctx := c.UserContext()
	inv, err := s.inspector.Inspect(ctx)
	if err != nil {
		return problem(http.StatusBadGateway, "inspecting this cluster failed: %v", err)
	}
	existing, err := s.store.GetClusterByUID(ctx, inv.ClusterUID)
	if err == nil {
		return c.JSON(view(*existing))
	}
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	uid := inv.ClusterUID
	row := &store.Cluster{Name: r.Name, Provider: inv.Provider, Region: inv.Region, Source: store.SourceSelfRegistered,
		IsHost: true, Status: string(v1alpha1.PhaseReady), Message: "registered from inside the cluster", KubernetesVersion: inv.KubernetesVersion,
		NodeCount: inv.NodeCount, ReadyNodeCount: inv.ReadyNodeCount, ClusterUID: &uid}
	if err := s.store.CreateCluster(ctx, row); err != nil {
		var conflict *store.ConflictError
		if errors.As(err, &conflict) && conflict.Field == "cluster_uid" {
			// A concurrent call registered it first: answer as the second call.
			if existing, gerr := s.store.GetClusterByUID(ctx, uid); gerr == nil {
				return c.JSON(view(*existing))
			}
		}
		return err
	}
	c.Locals(auditTargetKey, row.ID)
	return c.Status(http.StatusCreated).JSON(view(*row))
}
