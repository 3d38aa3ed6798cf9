package api

import (
	"context"
	"net/http"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

const testPassword = "correct-horse-battery"

// loginToken exchanges name's password for a login token.
func (e *sessionEnv) loginToken(name, password string) string {
	e.t.Helper()
	code, body := e.do(http.MethodPost, "/api/v1/session/tokens", "", map[string]any{"username": name, "password": password})
	if code != http.StatusCreated {
		e.t.Fatalf("login token for %s: %d %s", name, code, body)
	}
	return decode[issuedToken](e.t, body).Token
}

func (e *sessionEnv) userID(name string) string {
	e.t.Helper()
	u, err := e.st.UserByUsername(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.ID
}

// auditOf returns "METHOD route status" of the audit events targeting id,
// with their actors.
func (e *sessionEnv) auditOf(id string) map[string]string {
	e.t.Helper()
	events, err := e.st.ListAuditEvents(context.Background(), store.AuditFilter{Target: id, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, ev := range events {
		out[ev.Method+" "+ev.Route] = ev.Actor
	}
	return out
}

// An admin creates a user with a generated password, shown once; the user
// must choose a new one before signing in, and then can.
func TestCreatedUserChoosesANewPasswordFirst(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	code, body := e.do(http.MethodPost, "/api/v1/users", e.admin, map[string]any{"username": "ada", "email": "ada@example.com", "role": "viewer"})
	mustStatus(t, "create", code, body, 201)
	created := decode[createdUser](t, body)
	if len(created.GeneratedPassword) < 16 || !created.User.MustChangePassword || created.User.Role != Viewer {
		t.Fatalf("created %+v, want a viewer with a generated password who must change it", created)
	}
	if code, _, _ := e.signIn("ada", created.GeneratedPassword); code != 403 {
		t.Errorf("sign-in before choosing a password: %d, want 403", code)
	}
	code, body = e.do(http.MethodPost, "/api/v1/session/password", "",
		map[string]any{"username": "ada", "password": created.GeneratedPassword, "newPassword": "a-brand-new-password-1"})
	mustStatus(t, "change password", code, body, 204)
	if code, _, _ := e.signIn("ada", "a-brand-new-password-1"); code != 201 {
		t.Errorf("sign-in with the new password: %d, want 201", code)
	}
	code, body = e.do(http.MethodGet, "/api/v1/users", e.admin, nil)
	mustStatus(t, "list", code, body, 200)
	list := decode[userList](t, body)
	if len(list.Items) != 1 || list.Items[0].Username != "ada" || list.Items[0].MustChangePassword {
		t.Errorf("users = %+v, want ada, no longer told to change her password", list.Items)
	}
	if got := e.auditOf(created.User.ID)["POST /api/v1/users"]; got != "test-platform-admin" {
		t.Errorf("the create's audit actor = %q, want the admin's token name", got)
	}
	code, body = e.do(http.MethodPost, "/api/v1/users", e.admin, map[string]any{"username": "ada", "email": "x@example.com", "role": "viewer"})
	mustStatus(t, "a second ada", code, body, 409)
}

// Disabling a user stops their session and their login token at once, the
// cached token on GET /clusters included; enabling lets them sign in again
// while the revoked token stays revoked.
func TestDisabledUserIsStoppedAtOnce(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("ada", Viewer)
	_, cookie, _ := e.signIn("ada", testPassword)
	tok := e.loginToken("ada", testPassword)
	for _, path := range []string{"/api/v1/clusters", "/api/v1/session"} {
		if code, body := e.do(http.MethodGet, path, tok, nil); code != 200 {
			t.Fatalf("GET %s before the disable: %d %s", path, code, body)
		}
	}
	id := e.userID("ada")
	code, body := e.do(http.MethodPost, "/api/v1/users/"+id+"/disable", e.admin, nil)
	mustStatus(t, "disable", code, body, 200)
	if !decode[userView](t, body).Disabled {
		t.Errorf("the disabled user reads %s", body)
	}
	for _, path := range []string{"/api/v1/clusters", "/api/v1/session"} {
		if code, _ := e.do(http.MethodGet, path, tok, nil); code != 401 {
			t.Errorf("GET %s with a disabled user's token: %d, want 401", path, code)
		}
	}
	if code, _ := e.withSession(http.MethodGet, "/api/v1/clusters", cookie, "", ""); code != 401 {
		t.Errorf("a disabled user's session: %d, want 401", code)
	}
	if code, _, _ := e.signIn("ada", testPassword); code != 403 {
		t.Errorf("a disabled user's sign-in: %d, want 403", code)
	}
	code, body = e.do(http.MethodPost, "/api/v1/users/"+id+"/enable", e.admin, nil)
	mustStatus(t, "enable", code, body, 200)
	if code, _, _ := e.signIn("ada", testPassword); code != 201 {
		t.Errorf("sign-in once enabled: %d, want 201", code)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/session", tok, nil); code != 401 {
		t.Errorf("the token revoked by the disable works again: %d", code)
	}
	audit := e.auditOf(id)
	for _, route := range []string{"POST /api/v1/users/:id/disable", "POST /api/v1/users/:id/enable"} {
		if audit[route] != "test-platform-admin" {
			t.Errorf("audit of %s: actor %q, want the admin", route, audit[route])
		}
	}
}

// The super-admin is disabled, deleted or reset by no one but itself, and
// the last enabled platform admin cannot be disabled or deleted.
func TestSuperAdminAndLastAdminAreProtected(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	root, err := NewUser("root", "root@example.com", testPassword, PlatformAdmin)
	if err != nil {
		t.Fatal(err)
	}
	root.SuperAdmin = true
	if err := e.st.CreateUser(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	e.user("ops", PlatformAdmin)
	rootTok, opsTok := e.loginToken("root", testPassword), e.loginToken("ops", testPassword)
	for _, c := range []struct{ method, path string }{
		{http.MethodPost, "/disable"}, {http.MethodDelete, ""}, {http.MethodPost, "/password-reset"},
	} {
		if code, body := e.do(c.method, "/api/v1/users/"+root.ID+c.path, opsTok, nil); code != 403 {
			t.Errorf("another admin's %s %s on the super-admin: %d %s, want 403", c.method, c.path, code, body)
		}
	}
	opsID := e.userID("ops")
	code, body := e.do(http.MethodDelete, "/api/v1/users/"+opsID, rootTok, nil)
	mustStatus(t, "the super-admin deletes ops", code, body, 204)
	if code, _ := e.do(http.MethodGet, "/api/v1/users", opsTok, nil); code != 401 {
		t.Errorf("a deleted admin's token: %d, want 401", code)
	}
	code, body = e.do(http.MethodPost, "/api/v1/users/"+root.ID+"/disable", rootTok, nil)
	mustStatus(t, "the last admin disables itself", code, body, 409)
	code, body = e.do(http.MethodDelete, "/api/v1/users/"+root.ID, rootTok, nil)
	mustStatus(t, "the last admin deletes itself", code, body, 409)
	code, body = e.do(http.MethodDelete, "/api/v1/users/"+root.ID, e.admin, nil)
	mustStatus(t, "a script's token deletes the super-admin", code, body, 403)
	if code, _ := e.do(http.MethodGet, "/api/v1/users", rootTok, nil); code != 200 {
		t.Errorf("the super-admin lost access: %d", code)
	}
}

// A reset answers a generated password once; the old password, sessions
// and tokens stop, and the user must choose a new password. Ending a
// user's sessions and revoking one of their tokens work per user.
func TestResetEndSessionsAndUserTokens(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("ada", Viewer)
	e.user("bob", Viewer)
	id, bobID := e.userID("ada"), e.userID("bob")
	_, cookie, _ := e.signIn("ada", testPassword)
	first, second := e.loginToken("ada", testPassword), e.loginToken("ada", testPassword)
	bobTok := e.loginToken("bob", testPassword)

	code, body := e.do(http.MethodGet, "/api/v1/users/"+id+"/tokens", e.admin, nil)
	mustStatus(t, "list ada's tokens", code, body, 200)
	tokens := decode[tokenList](t, body).Items
	if len(tokens) != 2 {
		t.Fatalf("ada's tokens: %+v, want 2", tokens)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/users/"+bobID+"/tokens/"+tokens[0].ID, e.admin, nil)
	mustStatus(t, "revoke ada's token as bob's", code, body, 404)
	code, body = e.do(http.MethodDelete, "/api/v1/users/"+id+"/tokens/"+tokens[0].ID, e.admin, nil)
	mustStatus(t, "revoke ada's first token", code, body, 204)
	if c1, _ := e.do(http.MethodGet, "/api/v1/session", first, nil); c1 != 401 {
		t.Errorf("the revoked token answers %d", c1)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/users/"+id+"/sessions", e.admin, nil)
	mustStatus(t, "end ada's sessions", code, body, 200)
	if got := decode[accessEnded](t, body); got != (accessEnded{SessionsEnded: 1, TokensRevoked: 1}) {
		t.Errorf("ended %+v, want 1 session and 1 token", got)
	}
	if code, _ := e.withSession(http.MethodGet, "/api/v1/session", cookie, "", ""); code != 401 {
		t.Errorf("ada's ended session: %d", code)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/session", second, nil); code != 401 {
		t.Errorf("ada's second token after her sessions ended: %d", code)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/session", bobTok, nil); code != 200 {
		t.Errorf("bob's token stopped with ada's: %d", code)
	}
	code, body = e.do(http.MethodPost, "/api/v1/users/"+id+"/password-reset", e.admin, nil)
	mustStatus(t, "reset", code, body, 200)
	reset := decode[createdUser](t, body)
	if code, _, _ := e.signIn("ada", testPassword); code != 401 {
		t.Errorf("the old password after a reset: %d, want 401", code)
	}
	if code, _, _ := e.signIn("ada", reset.GeneratedPassword); code != 403 {
		t.Errorf("the reset password before choosing a new one: %d, want 403", code)
	}
	audit := e.auditOf(id)
	for _, route := range []string{"POST /api/v1/users/:id/password-reset", "DELETE /api/v1/users/:id/sessions"} {
		if audit[route] != "test-platform-admin" {
			t.Errorf("audit of %s: actor %q, want the admin", route, audit[route])
		}
	}
	if e.auditOf(tokens[0].ID)["DELETE /api/v1/users/:id/tokens/:tokenId"] != "test-platform-admin" {
		t.Errorf("the token's revocation is not audited with its target: %v", e.auditOf(tokens[0].ID))
	}
}
