package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Tokens are listed without their secrets, revoked at once, refused once
// expired, and their use is recorded in batches, not a write per request.
func TestTokenLifecycle(t *testing.T) {
	e := newEnv(t, envOpts{})
	usage := NewTokenUsage(e.st)
	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Logger: loggerTo(e.logs), TokenUsage: usage})
	ctx := context.Background()

	for range 20 {
		code, body := e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
		mustStatus(t, "list", code, body, 200)
	}
	rows, err := e.st.ListTokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.LastUsedAt != nil {
			t.Errorf("token %s: last_used_at written before a flush: a write per request", r.Name)
		}
	}
	if err := usage.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	code, body := e.do(http.MethodGet, "/api/v1/tokens", e.admin, nil)
	mustStatus(t, "tokens", code, body, 200)
	list := decode[tokenList](t, body)
	byName := map[string]tokenView{}
	for _, v := range list.Items {
		byName[v.Name] = v
	}
	if v := byName["test-viewer"]; v.LastUsedAt == nil || !v.Active || v.Role != "viewer" {
		t.Errorf("viewer token after the flush: %+v", v)
	}
	if strings.Contains(string(body), e.viewer) || strings.Contains(string(body), HashToken(e.viewer)) || strings.Contains(string(body), "hash") {
		t.Errorf("the list shows a token or its hash: %s", body)
	}

	code, _ = e.do(http.MethodGet, "/api/v1/tokens", e.viewer, nil)
	if code != 403 {
		t.Errorf("a viewer listed tokens: %d", code)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/tokens/"+byName["test-viewer"].ID, e.admin, nil)
	mustStatus(t, "revoke", code, body, 204)
	code, body = e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	if code != 401 || !strings.Contains(string(body), "revoked") {
		t.Errorf("a revoked token: %d %s", code, body)
	}
	if code, _ := e.do(http.MethodDelete, "/api/v1/tokens/no-such-id", e.admin, nil); code != 404 {
		t.Errorf("revoking an unknown token: %d", code)
	}

	tok, hash := NewToken()
	past := time.Now().Add(-time.Minute)
	if err := e.st.CreateToken(ctx, &store.Token{Name: "expired", Role: "viewer", Hash: hash, ExpiresAt: &past}); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(http.MethodGet, "/api/v1/clusters", tok, nil); code != 401 || !strings.Contains(string(body), "expired") {
		t.Errorf("an expired token: %d %s", code, body)
	}
}
