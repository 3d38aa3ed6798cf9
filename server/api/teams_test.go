package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// A platform admin makes a team, gives a user a role there, changes and
// ends it, and deletes the team; each change is audited with actor and
// target; mistakes answer what to fix.
func TestTeamsAndMembersThroughTheAPI(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	u := &store.User{Username: "tess", Email: "tess@example.com", PasswordHash: "x", Role: Member}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(http.MethodPost, "/api/v1/teams", e.admin, map[string]string{"name": "payments"})
	mustStatus(t, "create", code, body, 201)
	code, body = e.do(http.MethodPost, "/api/v1/teams", e.admin, map[string]string{"name": "payments"})
	mustStatus(t, "create again", code, body, 409)
	code, body = e.do(http.MethodPost, "/api/v1/teams", e.admin, map[string]string{"name": "Payments Team"})
	mustStatus(t, "a bad name", code, body, 400)
	code, body = e.do(http.MethodPut, "/api/v1/teams/payments/members/"+u.ID, e.admin, map[string]string{"role": "operator"})
	mustStatus(t, "set member", code, body, 200)
	if m := decode[store.MemberView](t, body); m.Username != "tess" || m.Role != Operator || m.Source != store.MemberSourceLocal {
		t.Errorf("member = %+v", m)
	}
	code, body = e.do(http.MethodPut, "/api/v1/teams/payments/members/"+u.ID, e.admin, map[string]string{"role": "platform-admin"})
	mustStatus(t, "a global role on a team", code, body, 400)
	code, body = e.do(http.MethodPut, "/api/v1/teams/payments/members/nobody", e.admin, map[string]string{"role": "viewer"})
	mustStatus(t, "an unknown user", code, body, 404)
	code, body = e.do(http.MethodPut, "/api/v1/teams/nowhere/members/"+u.ID, e.admin, map[string]string{"role": "viewer"})
	mustStatus(t, "an unknown team", code, body, 404)
	code, body = e.do(http.MethodGet, "/api/v1/teams/payments/members", e.admin, nil)
	mustStatus(t, "members", code, body, 200)
	if l := decode[memberList](t, body); len(l.Items) != 1 || l.Items[0].Username != "tess" {
		t.Errorf("members = %+v", l.Items)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/teams/payments/members/"+u.ID, e.admin, nil)
	mustStatus(t, "remove", code, body, 204)
	code, body = e.do(http.MethodDelete, "/api/v1/teams/payments/members/"+u.ID, e.admin, nil)
	mustStatus(t, "remove again", code, body, 404)
	code, body = e.do(http.MethodDelete, "/api/v1/teams/default", e.admin, nil)
	mustStatus(t, "delete the default team", code, body, 409)
	code, body = e.do(http.MethodDelete, "/api/v1/teams/payments", e.admin, nil)
	mustStatus(t, "delete", code, body, 204)
	code, body = e.do(http.MethodDelete, "/api/v1/teams/payments", e.admin, nil)
	mustStatus(t, "delete again", code, body, 404)
	events, err := e.st.ListAuditEvents(ctx, store.AuditFilter{Target: u.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for _, ev := range events {
		routes = append(routes, ev.Method+" "+ev.Route)
	}
	if joined := strings.Join(routes, "; "); !strings.Contains(joined, "PUT /api/v1/teams/:name/members/:userId") ||
		!strings.Contains(joined, "DELETE /api/v1/teams/:name/members/:userId") {
		t.Errorf("the user's audit rows: %s", joined)
	}
}
