package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Fleet lists the clusters the overview and health routes can reach.
type Fleet interface {
	Targets(ctx context.Context) ([]federation.Target, error)
	// Target is one cluster's; false when it has no usable kubeconfig yet.
	Target(ctx context.Context, row store.Cluster) (federation.Target, bool, error)
}

// overview is GET /federation/overview: every reachable cluster assessed
// concurrently, each within its own timeout. Viewers share one fan-out and
// its result for the cache's TTL (federation.Cache).
func (s *server) overview(c *fiber.Ctx) error {
	if s.fleet == nil {
		return problem(http.StatusServiceUnavailable, "the overview needs access to clusters: configure a management cluster or self-registration")
	}
	// The stamp costs one small query and keeps another server's delete
	// from being served out of this server's cache.
	stamp, err := s.store.ClustersStamp(c.UserContext())
	if err != nil {
		return err
	}
	ov, err := s.overviews.Get(c.UserContext(), stamp, func(ctx context.Context) (federation.Overview, error) {
		targets, err := s.fleet.Targets(ctx)
		if err != nil {
			return federation.Overview{}, err
		}
		return federation.Build(ctx, targets, s.overviewOpts), nil
	})
	if err != nil {
		s.log.Warn("overview: listing the clusters failed", "request_id", requestID(c), "reason", err)
		return problem(http.StatusBadGateway, "could not list the clusters to ask: %s", federation.Reason(err))
	}
	var f store.ClusterFilter
	if visibleOnly(c, &f); f.MemberOf != "" {
		page, err := s.store.ListClusterPage(c.UserContext(), f)
		if err != nil {
			return err
		}
		mine := make(map[string]bool, len(page.Clusters))
		for _, r := range page.Clusters {
			mine[r.ID] = true
		}
		ov = ov.Only(func(id string) bool { return mine[id] })
	}
	return c.JSON(ov)
}

// clusterHealth is GET /clusters/{id}/health: the score and the findings
// that produced it.
func (s *server) clusterHealth(c *fiber.Ctx) error {
	row, err := s.store.GetCluster(c.UserContext(), c.Params("id"))
	if err != nil {
		return err
	}
	if s.fleet == nil {
		return problem(http.StatusServiceUnavailable, "cluster %q cannot be reached: no management cluster or self-registration is configured", row.Name)
	}
	t, ok, err := s.fleet.Target(c.UserContext(), *row)
	if err != nil {
		s.log.Warn("health: reading the cluster's kubeconfig failed", "request_id", requestID(c), "cluster_id", row.ID, "reason", err)
		return problem(http.StatusBadGateway, "could not read how to reach cluster %q: %s", row.Name, federation.Reason(err))
	}
	if !ok {
		return problem(http.StatusConflict, "cluster %q has no usable kubeconfig yet (status %s)", row.Name, row.Status)
	}
	sc, err := s.healthCache.Get(c.UserContext(), row.ID, func(ctx context.Context) (health.Score, error) {
		cs, err := kubernetes.NewForConfig(kubeconfig.Tune(t.Config))
		if err != nil {
			return health.Score{}, &unusableKubeconfig{err}
		}
		ctx, cancel := context.WithTimeout(ctx, s.overviewOpts.Timeout)
		defer cancel()
		return health.Assess(ctx, cs)
	})
	var unusable *unusableKubeconfig
	if errors.As(err, &unusable) {
		s.log.Warn("health: the stored kubeconfig is unusable", "request_id", requestID(c), "cluster_id", row.ID, "reason", err)
		return problem(http.StatusConflict, "cluster %q has a stored kubeconfig that cannot be used (%v): connect it again with a valid one",
			row.Name, unusable.err)
	}
	if err != nil {
		s.log.Warn("health: the cluster did not answer", "request_id", requestID(c), "cluster_id", row.ID, "reason", err)
		return problem(http.StatusBadGateway, "cluster %q did not answer: %s", row.Name, federation.Reason(err))
	}
	return c.JSON(sc)
}

// unusableKubeconfig is a stored kubeconfig a client cannot be made from,
// such as one whose CA data is not a certificate (accepted before connect
// checked it).
type unusableKubeconfig struct{ err error }

func (u *unusableKubeconfig) Error() string { return "unusable kubeconfig: " + u.err.Error() }
