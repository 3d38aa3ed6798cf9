package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// clusterList is GET /clusters. HostRegistered tells the dashboard whether
// to show Get Started: it is false until a host cluster row exists, however
// many other clusters are connected. Continue fetches the next page; it is
// "" on the last page and when no limit was asked for.
type clusterList struct {
	Items          []clusterView `json:"items"`
	Continue       string        `json:"continue"`
	HostRegistered bool          `json:"hostRegistered"`
}

// listClusters is GET /clusters?limit=&continue=&phase=&provider=&source=&namePrefix=.
// Without limit it returns every matching cluster, as before paging existed.
// The filters and the paging run in the database.
func (s *server) listClusters(c *fiber.Ctx) error {
	f, err := clusterFilter(c)
	if err != nil {
		return err
	}
	ctx := c.UserContext()
	page, err := s.store.ListClusterPage(ctx, f)
	if errors.Is(err, store.ErrBadContinue) {
		return problem(http.StatusBadRequest, "continue: %v", err)
	}
	if err != nil {
		return err
	}
	host, err := s.store.HostRegistered(ctx)
	if err != nil {
		return err
	}
	rows := s.syncOnRead(c, page.Clusters)
	out := clusterList{Items: make([]clusterView, 0, len(rows)), Continue: page.Continue, HostRegistered: host}
	for _, r := range rows {
		// The stored phase matched; a live one merged since may not.
		if f.Status == "" || r.Status == f.Status {
			out.Items = append(out.Items, view(r))
		}
	}
	return c.JSON(out)
}

// clusterFilter reads the paging and filter parameters of GET /clusters.
func clusterFilter(c *fiber.Ctx) (store.ClusterFilter, error) {
	f := store.ClusterFilter{Status: c.Query("phase"), Provider: c.Query("provider"),
		Source: store.Source(c.Query("source")), NamePrefix: c.Query("namePrefix"), Continue: c.Query("continue")}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxPageSize {
			return f, problem(http.StatusBadRequest, "limit %q: want a whole number from 1 to %d, or no limit for every cluster", v, store.MaxPageSize)
		}
		f.Limit = n
	}
	if f.Continue != "" && f.Limit == 0 {
		return f, problem(http.StatusBadRequest, "continue needs limit: pass the same limit as for the previous page")
	}
	return f, nil
}

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
	for i := range rows {
		o, ok := observed[rows[i].ID]
		if !ok {
			continue
		}
		s.syncInventory(c, &rows[i], o)
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
