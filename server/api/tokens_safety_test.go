package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// A lifetime too large for a time.Duration is refused before any
// arithmetic, on both routes that issue tokens, instead of overflowing into
// a token that never expires.
func TestTokenLifetimesAreBoundedBeforeArithmetic(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("cli-user", Viewer)
	for _, c := range []struct {
		name, path string
		body       map[string]any
		token      string
		want       int
	}{
		{"a login token of 9,300,000,000 s", "/api/v1/session/tokens",
			map[string]any{"username": "cli-user", "password": "correct-horse-battery", "ttlSeconds": int64(9300000000)}, "", 400},
		{"a login token of 90 days and 1 s", "/api/v1/session/tokens",
			map[string]any{"username": "cli-user", "password": "correct-horse-battery", "ttlSeconds": 90*24*3600 + 1}, "", 400},
		{"an admin's token of 9,300,000,000 s", "/api/v1/tokens",
			map[string]any{"name": "ci", "role": "viewer", "ttlSeconds": int64(9300000000)}, e.admin, 400},
		{"an admin's token of the largest int64", "/api/v1/tokens",
			map[string]any{"name": "ci", "role": "viewer", "ttlSeconds": int64(1<<63 - 1)}, e.admin, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := e.do(http.MethodPost, c.path, c.token, c.body)
			if code != c.want || !strings.Contains(string(body), "ttlSeconds") {
				t.Errorf("status %d, want %d naming ttlSeconds: %s", code, c.want, body)
			}
		})
	}
	list, err := e.st.ListTokens(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range list {
		if tok.ExpiresAt != nil && tok.ExpiresAt.After(time.Now().Add(maxLoginTokenTTL)) {
			t.Errorf("token %q was stored expiring %v", tok.Name, tok.ExpiresAt)
		}
	}
}

// Token names are labels a person reads: bounded, printable, without
// text-direction tricks or markup, never a reserved name, another user's
// login name or something that looks like an ID; the error says what to fix.
func TestTokenNamesAreValidated(t *testing.T) {
	for _, c := range []struct {
		name, value, user string
		wantInMsg         string // "" when accepted
	}{
		{"a plain label is accepted", "ci deploy-bot @eu/1", "", ""},
		{"the user's own login name is accepted", "login:ada", "ada", ""},
		{"a non-Latin label is accepted", "déploiement 部署", "", ""},
		{"empty is refused", "", "", "is required"},
		{"65 characters are refused", strings.Repeat("a", 65), "", "at most 64"},
		{"a bidi override is refused", "invoice\u202Egpj.exe", "", "text-direction"},
		{"a zero-width space is refused", "ad\u200bmin", "", "invisible"},
		{"a newline is refused", "a\nb", "", "control characters"},
		{"HTML is refused", "<img src=x onerror=alert(1)>", "", "must not contain <"},
		{"initial-admin is reserved", "initial-admin", "", "reserved"},
		{"reserved names ignore case", "Initial-Admin", "", "reserved"},
		{"another user's login name is refused", "login:root", "ada", "reserved for login tokens"},
		{"an admin's token cannot pass for a login token", "login:ada", "", "reserved for login tokens"},
		{"a UUID is refused", "0b0c1c9e-3f1a-4c55-9d3e-6f1e2d3c4b5a", "", "look like a token ID"},
		{"a leading space is refused", " ci", "", "start or end with a space"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkTokenName("name", c.value, c.user)
			switch {
			case c.wantInMsg == "" && got != nil:
				t.Errorf("refused: %s", got.Message)
			case c.wantInMsg != "" && (got == nil || !strings.Contains(got.Message, c.wantInMsg)):
				t.Errorf("got %v, want a refusal saying %q", got, c.wantInMsg)
			}
		})
	}
	e := newSessionEnv(t, SessionOptions{})
	e.user("ada", Viewer)
	code, body := e.do(http.MethodPost, "/api/v1/tokens", e.admin, map[string]any{"name": "initial-admin", "role": "viewer"})
	if code != 400 || !strings.Contains(string(body), "reserved") {
		t.Errorf("an admin naming a token initial-admin: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/session/tokens", "",
		map[string]any{"username": "ada", "password": "correct-horse-battery", "name": "initial-admin"})
	if code != 400 || !strings.Contains(string(body), "reserved") {
		t.Errorf("a viewer naming a login token initial-admin: %d %s", code, body)
	}
}

// Revoking through the API names the token by ID: a token named after
// another's ID (stored directly, as an older server allowed) changes
// nothing, and the first token stops working at once.
func TestRevokeByIDWhenAnotherTokenIsNamedAfterIt(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/tokens", e.admin, map[string]any{"name": "first", "role": "viewer"})
	mustStatus(t, "create", code, body, 201)
	first := decode[issuedToken](t, body)
	tok, hash := NewToken()
	if err := e.st.CreateToken(context.Background(), &store.Token{Name: first.ID, Role: "viewer", Hash: hash}); err != nil {
		t.Fatal(err)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/tokens/"+first.ID, e.admin, nil)
	mustStatus(t, "revoke the first by ID", code, body, 204)
	if code, _ := e.do(http.MethodGet, "/api/v1/session", first.Token, nil); code != 401 {
		t.Errorf("the revoked token answers %d, want 401", code)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/session", tok, nil); code != 200 {
		t.Errorf("the token named after the first one's ID answers %d, want 200 (not revoked)", code)
	}
	events, err := e.st.ListAuditEvents(context.Background(), store.AuditFilter{Target: first.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]int{}
	for _, ev := range events {
		routes[ev.Method+" "+ev.Route]++
	}
	if routes["POST /api/v1/tokens"] != 1 || routes["DELETE /api/v1/tokens/:id"] != 1 {
		t.Errorf("audit events targeting the token: %v, want its creation and its revocation", routes)
	}
}

// Signing out with a bearer token revokes that token, for a viewer as for
// an admin, and a login token is linked to its user.
func TestSignOutRevokesTheBearerTokenOfAnyRole(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("ada", Viewer)
	code, body := e.do(http.MethodPost, "/api/v1/session/tokens", "", map[string]any{"username": "ada", "password": "correct-horse-battery"})
	mustStatus(t, "exchange", code, body, 201)
	tok := decode[issuedToken](t, body)
	u, err := e.st.UserByUsername(context.Background(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	if list, err := e.st.ListUserTokens(context.Background(), u.ID); err != nil || len(list) != 1 || list[0].ID != tok.ID {
		t.Errorf("ada's tokens = %+v, %v; want the login token", list, err)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/session", tok.Token, nil)
	mustStatus(t, "sign out with the token", code, body, 204)
	if code, _ := e.do(http.MethodGet, "/api/v1/clusters", tok.Token, nil); code != 401 {
		t.Errorf("the signed-out viewer token answers %d, want 401", code)
	}
}
