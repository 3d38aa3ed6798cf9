package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
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
	// Onboarding says whether the caller may bring a cluster in now, each
	// way with the reason when not: the server's mode (no management
	// cluster, no view of its own cluster) or the caller's role.
	Onboarding onboarding `json:"onboarding"`
}

// onboarding is what GET /clusters says of connect, provision and
// register-self for the caller, before they fill in any form.
type onboarding struct {
	// ServerOnly: the server runs without a management cluster, so no one
	// can connect or provision (the reasons say how to change that).
	ServerOnly   bool   `json:"serverOnly"`
	Connect      action `json:"connect"`
	Provision    action `json:"provision"`
	RegisterSelf action `json:"registerSelf"`
}

// onboardingFor decides onboarding by what the routes would answer: 503
// without a management cluster (or without a view of the server's own
// cluster), 403 without the admin role on some team (platform-admin for
// register-self).
func (s *server) onboardingFor(c *fiber.Ctx) (onboarding, error) {
	bring := action{Allowed: true}
	_, serverOnly := s.registry.(hostclusters.Unconfigured)
	if serverOnly {
		bring = action{Reason: "this server runs without a management cluster (server-only mode), so it cannot connect or provision clusters: " +
			"start it with --kubeconfig pointing at one, run it inside a cluster, or use 'kubeopera dev' to try everything locally"}
	} else if admins, err := s.teamsAdministered(c); err != nil {
		return onboarding{}, err
	} else if admins != nil && len(admins) == 0 {
		bring = action{Reason: "connecting or provisioning a cluster needs the admin role on a team; ask a platform admin"}
	}
	self := action{Allowed: true}
	switch {
	case s.inspector == nil:
		self = action{Reason: "this server cannot see the cluster it runs in: run it in a cluster with its ServiceAccount, or start it with --self-kubeconfig"}
	case !who(c).Role.AtLeast(PlatformAdmin):
		self = action{Reason: "registering the server's own cluster needs the platform-admin role"}
	}
	return onboarding{ServerOnly: serverOnly, Connect: bring, Provision: bring, RegisterSelf: self}, nil
}

// listClusters is GET /clusters?limit=&continue=&phase=&provider=&source=&namePrefix=&team=:
// the clusters of the caller's teams (every team's for a global viewer).
// Without limit it returns every matching cluster, as before paging existed.
// The filters and the paging run in the database.
func (s *server) listClusters(c *fiber.Ctx) error {
	f, err := clusterFilter(c)
	if err != nil {
		return s.failConfirmed(c, err)
	}
	f.ActiveToken = tokenToConfirm(c)
	visibleOnly(c, &f)
	page, err := s.store.ListClusterPage(c.UserContext(), f)
	if err != nil {
		err = s.failConfirmed(c, err)
	} else if err := s.confirmToken(c, page.TokenActive); err != nil {
		return err
	}
	if errors.Is(err, store.ErrBadContinue) {
		return problem(http.StatusBadRequest, "continue: %v", err)
	}
	if err != nil {
		return err
	}
	rows := s.syncOnRead(c, page.Clusters)
	roleOn, err := s.rolesByTeam(c)
	if err != nil {
		return err
	}
	ob, err := s.onboardingFor(c)
	if err != nil {
		return err
	}
	plugins := s.pluginInfos(rows)
	out := clusterList{Items: make([]clusterView, 0, len(rows)), Continue: page.Continue, HostRegistered: page.HostRegistered, Onboarding: ob}
	for _, r := range rows {
		// The stored phase matched; a live one merged since may not.
		if f.Status == "" || r.Status == f.Status {
			v := view(r)
			v.Role = roleOn(r.Team)
			a := actionsFor(&r, v.Role, plugins[r.Plugin])
			v.Actions = &a
			out.Items = append(out.Items, v)
		}
	}
	return sendClusterList(c, out)
}

// clusterFilter reads the paging and filter parameters of GET /clusters.
func clusterFilter(c *fiber.Ctx) (store.ClusterFilter, error) {
	f := store.ClusterFilter{Status: c.Query("phase"), Provider: c.Query("provider"),
		Source: store.Source(c.Query("source")), NamePrefix: c.Query("namePrefix"), Team: c.Query("team"), Continue: c.Query("continue")}
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxPageSize {
			return f, problem(http.StatusBadRequest, "limit %q: want a whole number from 1 to %d, or no limit for every cluster", v, store.MaxPageSize)
		}
		f.Limit = n
	}
	if f.Status != "" && !slices.Contains(v1alpha1.Phases, v1alpha1.Phase(f.Status)) {
		return f, invalid(FieldProblem{"phase", fmt.Sprintf("%q is no phase; want one of %s", f.Status, joinValues(v1alpha1.Phases))})
	}
	if f.Source != "" && !slices.Contains(store.Sources, f.Source) {
		return f, invalid(FieldProblem{"source", fmt.Sprintf("%q is no source; want one of %s", f.Source, joinValues(store.Sources))})
	}
	if f.Continue != "" && f.Limit == 0 {
		return f, problem(http.StatusBadRequest, "continue needs limit: pass the same limit as for the previous page")
	}
	return f, nil
}

// joinValues lists a closed set of values for a message: "a, b or c".
func joinValues[T ~string](values []T) string {
	out := ""
	for i, v := range values {
		switch {
		case i == 0:
		case i == len(values)-1:
			out += " or "
		default:
			out += ", "
		}
		out += string(v)
	}
	return out
}
