package api

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// A user's password buys a token of the user's role that expires; it goes
// through the sign-in's throttle (the same failures count against both),
// and the audit log names the user.
func TestPasswordForTokenExchange(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{PerAccount: 3})
	e.user("cli-user", Viewer)
	exchange := func(password string, extra map[string]any) (int, []byte) {
		body := map[string]any{"username": "cli-user", "password": password}
		for k, v := range extra {
			body[k] = v
		}
		return e.do(http.MethodPost, "/api/v1/session/tokens", "", body)
	}
	before := time.Now().Add(time.Hour - time.Millisecond)
	code, body := exchange("correct-horse-battery", map[string]any{"ttlSeconds": 3600})
	mustStatus(t, "exchange", code, body, 201)
	got := decode[issuedToken](t, body)
	if !strings.HasPrefix(got.Token, "kop_") || got.Role != Viewer || got.Name != "login:cli-user" || got.ExpiresAt == nil ||
		got.ExpiresAt.Before(before) || got.ExpiresAt.After(time.Now().Add(time.Hour)) {
		t.Errorf("issued %+v, want a viewer token named login:cli-user expiring in an hour", got)
	}
	code, body = e.do(http.MethodGet, "/api/v1/session", got.Token, nil)
	if code != 200 || decode[sessionResponse](t, body).User.Role != Viewer {
		t.Errorf("the issued token does not work: %d %s", code, body)
	}
	if code, body = exchange("correct-horse-battery", map[string]any{"ttlSeconds": 91 * 24 * 3600}); code != 400 {
		t.Errorf("a 91-day token: %d %s, want 400", code, body)
	}
	// One failure by the dashboard's sign-in, two here: the third is the
	// account's last, and then even the right password is refused.
	if code, _, _ := e.signIn("cli-user", "wrong"); code != 401 {
		t.Fatalf("wrong password at sign-in: %d", code)
	}
	for range 2 {
		code, body = exchange("wrong", nil)
		mustStatus(t, "wrong password", code, body, 401)
	}
	code, body = exchange("correct-horse-battery", nil)
	mustStatus(t, "after three failures", code, body, 429)
	u, err := e.st.UserByUsername(context.Background(), "cli-user")
	if err != nil {
		t.Fatal(err)
	}
	// The issue is recorded under the user; every failed attempt against
	// the account by an anonymous actor (whoever sent a wrong password is
	// nobody known): the two failed exchanges and the dashboard's failed
	// sign-in.
	byStatus := map[string]int{}
	for _, f := range []store.AuditFilter{{Actor: "cli-user", Limit: 10}, {Target: u.ID, Limit: 10}} {
		events, err := e.st.ListAuditEvents(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			byStatus[fmt.Sprintf("%s %s %d", ev.Actor, ev.Route, ev.Status)]++
		}
	}
	want := map[string]int{"cli-user /api/v1/session/tokens 201": 1, "anonymous /api/v1/session/tokens 401": 2, "anonymous /api/v1/session 401": 1}
	if !maps.Equal(byStatus, want) {
		t.Errorf("the exchange's audit events: %v, want %v", byStatus, want)
	}
}

// An admin issues a token of any role through the API; a viewer cannot.
func TestAdminCreatesToken(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/tokens", e.admin, map[string]any{"name": "ci", "role": "platform-admin", "ttlSeconds": 60})
	mustStatus(t, "create", code, body, 201)
	tok := decode[issuedToken](t, body)
	if code, body := e.do(http.MethodGet, "/api/v1/tokens", tok.Token, nil); code != 200 || !strings.Contains(string(body), `"ci"`) {
		t.Errorf("the new admin token cannot list tokens: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/tokens", e.admin, map[string]any{"name": "", "role": "root"})
	mustStatus(t, "invalid", code, body, 400)
	if p := decode[Problem](t, body); len(p.Fields) != 2 {
		t.Errorf("want name and role named: %s", body)
	}
}
