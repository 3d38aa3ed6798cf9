package api

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/ochestra-tech/kubeopera/server/access"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// teamView is a team as GET /teams lists it: what it holds, and the
// caller's role there ("" for a platform admin or global viewer who is no
// member).
type teamView struct {
	store.TeamSummary
	Role Role `json:"role,omitempty"`
}

type teamList struct {
	Items []teamView `json:"items"`
}

type teamRequest struct {
	Name string `json:"name" jsonschema:"required"`
}

type memberRequest struct {
	Role Role `json:"role" jsonschema:"required"`
}

type memberList struct {
	Items []store.MemberView `json:"items"`
}

// listTeams is GET /teams: every team for a caller whose global role
// reads every team, else the caller's own, each with the caller's role.
func (s *server) listTeams(c *fiber.Ctx) error {
	ctx, p := c.UserContext(), who(c)
	roles := map[string]Role{}
	if p.UserID != "" {
		ms, err := s.memberships(c)
		if err != nil {
			return err
		}
		for _, m := range ms {
			roles[m.Team] = m.Role
		}
	}
	var names []string
	if !access.SeesEveryTeam(p.Role) {
		names = make([]string, 0, len(roles))
		for t := range roles {
			names = append(names, t)
		}
	}
	teams, err := s.store.ListTeams(ctx, names)
	if err != nil {
		return err
	}
	out := teamList{Items: make([]teamView, 0, len(teams))}
	for _, t := range teams {
		out.Items = append(out.Items, teamView{TeamSummary: t, Role: roles[t.Name]})
	}
	return c.JSON(out)
}

// createTeam is POST /teams.
func (s *server) createTeam(c *fiber.Ctx) error {
	var r teamRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if err := access.CheckTeamName(r.Name); err != nil {
		return invalid(FieldProblem{"name", err.Error()})
	}
	var t *store.Team
	if err := s.changeAudited(c, http.StatusCreated, func(ev *store.AuditEvent) error {
		var err error
		t, err = s.store.CreateTeam(c.UserContext(), r.Name, ev)
		return err
	}); err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(t)
}

// deleteTeam is DELETE /teams/{name}: not the default team, nor one that
// still owns clusters or credentials.
func (s *server) deleteTeam(c *fiber.Ctx) error {
	name := c.Params("name")
	if err := s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) error {
		return s.store.DeleteTeam(c.UserContext(), name, ev)
	}); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// listMembers is GET /teams/{name}/members.
func (s *server) listMembers(c *fiber.Ctx) error {
	ctx, name := c.UserContext(), c.Params("name")
	if _, err := s.store.GetTeam(ctx, name); err != nil {
		return err
	}
	ms, err := s.store.MembersOf(ctx, name)
	if err != nil {
		return err
	}
	return c.JSON(memberList{Items: ms})
}

// setMember is PUT /teams/{name}/members/{userId}: the user's role on the
// team, replacing the one they had. It takes effect on their next request,
// open sessions and proxied watches included.
func (s *server) setMember(c *fiber.Ctx) error {
	var r memberRequest
	if err := bindJSON(c, &r); err != nil {
		return err
	}
	if _, err := access.ParseTeam(string(r.Role)); err != nil {
		return invalid(FieldProblem{"role", err.Error()})
	}
	ctx, team := c.UserContext(), c.Params("name")
	if _, err := s.store.GetTeam(ctx, team); err != nil {
		return err
	}
	u, err := s.store.GetUser(ctx, c.Params("userId"))
	if err != nil {
		return err
	}
	m := store.TeamMember{Team: team, UserID: u.ID, Role: r.Role, Source: store.MemberSourceLocal}
	if err := s.changeAudited(c, http.StatusOK, func(ev *store.AuditEvent) error {
		return s.store.SetMember(ctx, m, ev)
	}); err != nil {
		return err
	}
	return c.JSON(store.MemberView{TeamMember: m, Username: u.Username})
}

// removeMember is DELETE /teams/{name}/members/{userId}.
func (s *server) removeMember(c *fiber.Ctx) error {
	ctx, team, id := c.UserContext(), c.Params("name"), c.Params("userId")
	err := s.changeAudited(c, http.StatusNoContent, func(ev *store.AuditEvent) error {
		return s.store.RemoveMember(ctx, team, id, ev)
	})
	if errors.Is(err, store.ErrNotFound) {
		return problem(http.StatusNotFound, "user %q is not a member of team %q", id, team)
	}
	if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
