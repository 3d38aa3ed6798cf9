package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// scope is where a route's role is checked.
type scope int

const (
	// globalScope: against the caller's global role.
	globalScope scope = iota
	// clusterScope: against the caller's role on the team of the cluster
	// the path names.
	clusterScope
	// credentialScope: the same for a cloud credential.
	credentialScope
)

// scopeOf is where the route with path checks its role: the routes of one
// cluster or one credential on its team, every other route globally.
func scopeOf(path string) scope {
	switch {
	case strings.HasPrefix(path, "/api/v1/clusters/:id"):
		return clusterScope
	case strings.HasPrefix(path, "/api/v1/credentials/:id"):
		return credentialScope
	}
	return globalScope
}

const (
	needKey      = "need"
	placementKey = "placement"
)

// admitPlaced lets p through when its role on the team of the cluster or
// credential the path names suffices for need. A caller who may not see
// it at all is told it does not exist, as for one that does not.
func (s *server) admitPlaced(c *fiber.Ctx, p principal, need Role, sc scope) error {
	if p.Role == PlatformAdmin || (p.UserID == "" && need == Viewer && sc == clusterScope && access.SeesEveryTeam(p.Role)) {
		return c.Next()
	}
	id, what, place := c.Params("id"), "cluster", s.store.ClusterPlacement
	if sc == credentialScope {
		what, place = "credential", s.store.CredentialPlacement
	}
	pl, err := place(c.UserContext(), id, p.UserID)
	if err != nil {
		return s.failConfirmed(c, err)
	}
	role := access.OnTeam(p.Role, pl.Member)
	if role == Anonymous {
		return s.failConfirmed(c, fmt.Errorf("%s %q: %w", what, id, store.ErrNotFound))
	}
	if !role.AtLeast(need) {
		return s.failConfirmed(c, problem(http.StatusForbidden, "this needs the %s role on team %q; %s has %s there",
			need, pl.Team, p.describe(), role))
	}
	c.Locals(placementKey, pl)
	return c.Next()
}

// mayOnTeam checks, for a route whose request names the team (a cluster
// or credential to make), the caller's role on team against the route's;
// the team must exist.
func (s *server) mayOnTeam(c *fiber.Ctx, team string) error {
	need, _ := c.Locals(needKey).(Role)
	ctx := c.UserContext()
	if _, err := s.store.GetTeam(ctx, team); errors.Is(err, store.ErrNotFound) {
		return invalid(FieldProblem{"team", fmt.Sprintf("there is no team %q (see GET /api/v1/teams)", team)})
	} else if err != nil {
		return err
	}
	p := who(c)
	if p.Role == PlatformAdmin {
		return nil
	}
	member, err := s.store.MemberRole(ctx, team, p.UserID)
	if err != nil {
		return err
	}
	if role := access.OnTeam(p.Role, member); !role.AtLeast(need) {
		return problem(http.StatusForbidden, "this needs the %s role on team %q; %s has %s there", need, team, p.describe(), role)
	}
	return nil
}

// visibleOnly narrows f to the teams the caller belongs to, unless its
// global role reads every team.
func visibleOnly(c *fiber.Ctx, f *store.ClusterFilter) {
	p := who(c)
	if access.SeesEveryTeam(p.Role) {
		return
	}
	f.MemberOf = p.UserID
	if f.MemberOf == "" { // a token of no user belongs to no team
		f.MemberOf = noUser
	}
}

// noUser is no user's ID.
const noUser = "\x00"

// teamOf fills in the default team a request left out and checks the
// caller's role on the team it names.
func (s *server) teamOf(c *fiber.Ctx, team *string) error {
	if *team == "" {
		*team = store.DefaultTeam
	}
	return s.mayOnTeam(c, *team)
}

// sameTeam refuses a credential of another team than the cluster's: a
// team's credentials are for its own clusters.
func (s *server) sameTeam(c *fiber.Ctx, credentialID, team, field string) error {
	pl, err := s.store.CredentialPlacement(c.UserContext(), credentialID, "")
	if errors.Is(err, store.ErrNotFound) {
		return nil // the resolver says it does not exist
	}
	if err != nil {
		return err
	}
	if pl.Team != team {
		return invalid(FieldProblem{field, fmt.Sprintf("the credential belongs to team %q; a cluster of team %q may use only its own team's credentials", pl.Team, team)})
	}
	return nil
}

// rolesByTeam returns the caller's role on each team's clusters, reading
// its memberships once (not at all for a platform admin).
func (s *server) rolesByTeam(c *fiber.Ctx) (func(team string) Role, error) {
	p := who(c)
	if p.Role == PlatformAdmin || p.UserID == "" {
		return func(string) Role { return access.OnTeam(p.Role, "") }, nil
	}
	ms, err := s.memberships(c)
	if err != nil {
		return nil, err
	}
	member := make(map[string]Role, len(ms))
	for _, m := range ms {
		member[m.Team] = m.Role
	}
	return func(team string) Role { return access.OnTeam(p.Role, member[team]) }, nil
}

// roleHere is the caller's role on the cluster or credential of a placed
// route, as admitPlaced found it.
func roleHere(c *fiber.Ctx) Role {
	p := who(c)
	if pl, ok := c.Locals(placementKey).(store.Placement); ok {
		return access.OnTeam(p.Role, pl.Member)
	}
	return access.OnTeam(p.Role, "")
}

const membershipsKey = "memberships"

// memberships are the caller's team memberships, read once per request
// however many parts of it ask (the list's roles and its onboarding).
func (s *server) memberships(c *fiber.Ctx) ([]store.TeamMember, error) {
	if ms, ok := c.Locals(membershipsKey).([]store.TeamMember); ok {
		return ms, nil
	}
	ms, err := s.store.TeamsOf(c.UserContext(), who(c).UserID)
	if err == nil {
		c.Locals(membershipsKey, ms)
	}
	return ms, err
}
