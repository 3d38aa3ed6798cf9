package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// teamCaller is one caller of the team matrix: a global role, and a role
// on team-a ("" for none).
type teamCaller struct {
	name   string
	global Role
	onA    Role
	token  string
}

// Every route × every role × the caller's own team (team-a) and another
// (team-b): a cluster or credential route admits the caller when its role
// on the object's team suffices, answers 403 when the caller sees the
// object but may not do this, and 404 when it may not see it; a route that
// names its team in the body decides on that team; a global route on the
// global role. The platform admin is never refused.
func TestEveryRouteChecksTheTeamRole(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	for _, n := range []string{"team-a", "team-b"} {
		if _, err := e.st.CreateTeam(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]map[string]string{
		"cluster":    {"team-a": "00000000-0000-0000-0000-00000000000a", "team-b": "00000000-0000-0000-0000-00000000000b"},
		"credential": {"team-a": "00000000-0000-0000-0000-0000000000ca", "team-b": "00000000-0000-0000-0000-0000000000cb"},
	}
	// Each cell finds the cluster and credential of both teams, whatever
	// an earlier cell deleted: a 404 on them is then only ever a refusal.
	ensure := func() {
		for _, team := range []string{"team-a", "team-b"} {
			if _, err := e.st.GetCluster(ctx, ids["cluster"][team]); err != nil {
				c := &store.Cluster{ID: ids["cluster"][team], Name: "c-" + team, Team: team, Provider: "local",
					Source: store.SourceProvisioned, Plugin: "local", Status: "Ready"}
				if err := e.st.CreateCluster(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := e.st.GetCredential(ctx, ids["credential"][team]); err != nil {
				k := &store.Credential{ID: ids["credential"][team], Label: "k-" + team, Team: team, Kind: "access_key", Ciphertext: []byte("x"), KeyID: "k"}
				if err := e.st.CreateCredential(ctx, k); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	callers := []*teamCaller{
		{name: "member, no team", global: Member},
		{name: "viewer of team-a", global: Member, onA: Viewer},
		{name: "operator of team-a", global: Member, onA: Operator},
		{name: "admin of team-a", global: Member, onA: Admin},
		{name: "global viewer", global: Viewer},
		{name: "global viewer, admin of team-a", global: Viewer, onA: Admin},
		{name: "platform admin", global: PlatformAdmin},
	}
	for i, c := range callers {
		c.token = e.memberToken(fmt.Sprintf("user-%d", i), c.global, c.onA)
	}
	cells, refused := 0, 0
	for _, r := range routes {
		if r.role == Anonymous || r.path == "/api/v1/session" && r.method == http.MethodDelete {
			continue
		}
		sc := scopeOf(r.path)
		for _, team := range []string{"team-a", "team-b"} {
			path := placedPath(r.path, sc, ids, team)
			body := any(nil)
			if r.method != http.MethodGet && r.method != http.MethodDelete {
				body = fmt.Sprintf(`{"team":%q}`, team)
			}
			for _, c := range callers {
				ensure()
				code, resp := e.do(r.method, path, c.token, body)
				want := expectedFor(r, sc, c, team)
				cells++
				if code == 401 || code == 403 || code == 404 && sc != globalScope {
					refused++
				}
				if !matches(want, code, sc) {
					t.Errorf("%s %s (%s) as %s: %d %s, want %s", r.method, r.path, team, c.name, code, firstLine(resp), want)
				}
			}
		}
	}
	t.Logf("team matrix: %d routes × %d callers × 2 teams = %d cells, %d refused", cells/len(callers)/2, len(callers), cells, refused)
}

// expectedFor is the matrix's rule, written from the issue rather than
// from admit: "allowed", "403" or "404".
func expectedFor(r route, sc scope, c *teamCaller, team string) string {
	if c.global == PlatformAdmin {
		return "allowed"
	}
	onTeam := Anonymous
	if team == "team-a" {
		onTeam = c.onA
	}
	if c.global == Viewer && !onTeam.AtLeast(Viewer) {
		onTeam = Viewer
	}
	switch {
	case sc != globalScope:
		if onTeam == Anonymous {
			return "404"
		}
		if onTeam.AtLeast(r.role) {
			return "allowed"
		}
		return "403"
	case r.role == Operator || r.role == Admin: // the team is in the body
		if onTeam.AtLeast(r.role) {
			return "allowed"
		}
		return "403"
	case c.global.AtLeast(r.role):
		return "allowed"
	}
	return "403"
}

// matches: on a global route an admitted request may still find nothing
// (404 for an ID no one has); on a cluster or credential route, whose
// object the cell made sure of, a 404 is a refusal.
func matches(want string, code int, sc scope) bool {
	switch want {
	case "allowed":
		return code != 401 && code != 403 && (code != 404 || sc == globalScope)
	case "403":
		return code == 403
	}
	return code == 404
}

func placedPath(path string, sc scope, ids map[string]map[string]string, team string) string {
	switch sc {
	case clusterScope:
		path = strings.Replace(path, ":id", ids["cluster"][team], 1)
	case credentialScope:
		path = strings.Replace(path, ":id", ids["credential"][team], 1)
	}
	path = strings.Replace(path, ":name", team, 1)
	return pathParamRE.ReplaceAllString(path, "00000000-0000-0000-0000-000000000000")
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	if len(s) > 160 {
		s = s[:160]
	}
	return s
}

// memberToken makes a user of global role global, a role onA on team-a
// when set, and a login token of theirs.
func (e *env) memberToken(name string, global, onA Role) string {
	e.t.Helper()
	ctx := context.Background()
	u := &store.User{Username: name, Email: name + "@example.com", PasswordHash: "x", Role: global}
	if err := e.st.CreateUser(ctx, u); err != nil {
		e.t.Fatal(err)
	}
	if onA != "" {
		if err := e.st.SetMember(ctx, store.TeamMember{Team: "team-a", UserID: u.ID, Role: onA, Source: store.MemberSourceLocal}); err != nil {
			e.t.Fatal(err)
		}
	}
	tok, hash := NewToken()
	expires := time.Now().Add(time.Hour)
	if err := e.st.CreateToken(ctx, &store.Token{Name: "login:" + name, Role: string(global), Hash: hash, UserID: u.ID, ExpiresAt: &expires}); err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// ensureTeamA makes the team memberToken puts its users in.
func (e *env) ensureTeamA(t *testing.T) {
	t.Helper()
	if _, err := e.st.CreateTeam(context.Background(), "team-a"); err != nil {
		t.Fatal(err)
	}
}
