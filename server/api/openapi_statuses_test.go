package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// The statuses every route of a kind answers (statusesOf), sent to every
// route: 401 without credentials, 403 for a viewer on an admin's route,
// 415 for a body that is not JSON, 400 for broken JSON, and 503 for every
// route that reads the database while it is closed. Each answer is
// checked against the document by env.send; each status is asserted here.
func TestEveryRouteAnswersTheStatusesOfItsLayers(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	cluster := &store.Cluster{Name: "layers", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	if err := e.st.CreateCluster(ctx, cluster); err != nil {
		t.Fatal(err)
	}
	cred := createAccessKey(t, e, "layers")
	ids := map[string]string{"/api/v1/clusters/": cluster.ID, "/api/v1/credentials/": cred.ID, "/api/v1/tokens/": "no-such-token"}
	pathOf := func(r route) string {
		for prefix, id := range ids {
			if strings.HasPrefix(r.path, prefix+":id") {
				return strings.Replace(r.path, ":id", id, 1)
			}
		}
		return r.path
	}
	send := func(r route, token, contentType, body string) int {
		t.Helper()
		req := httptest.NewRequest(r.method, pathOf(r), strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Header.Set(SetupSecretHeader, testSetupSecret)
		code, _ := e.send(req)
		return code
	}
	expect := func(r route, what string, got, want int) {
		t.Helper()
		if got != want {
			t.Errorf("%s %s %s: %d, want %d", r.method, r.path, what, got, want)
		}
	}
	for _, r := range routes {
		if r.role != Anonymous {
			expect(r, "without a token", send(r, "", "", ""), http.StatusUnauthorized)
		}
		if r.role == PlatformAdmin {
			expect(r, "as a viewer", send(r, e.viewer, "", ""), http.StatusForbidden)
		}
		if r.request != "" {
			expect(r, "with a text body", send(r, e.admin, "text/plain", "hello"), http.StatusUnsupportedMediaType)
			expect(r, "with broken JSON", send(r, e.admin, "application/json", "{"), http.StatusBadRequest)
		}
	}
	code, body := e.do(http.MethodGet, "/api/v1/audit?limit=0", e.admin, nil)
	mustStatus(t, "audit with limit 0", code, body, 400)
	// Without a management cluster there is no HostCluster to wait for.
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+cluster.ID, e.admin, nil)
	mustStatus(t, "disconnect without a management cluster", code, body, 204)

	// Last: the database goes away under the running server.
	e.st.Close()
	for _, r := range routes {
		if !slices.Contains(statusesOf(r), http.StatusServiceUnavailable) {
			continue
		}
		body := ""
		switch {
		case r.request == "SignInRequest" || r.request == "TokenExchangeRequest":
			body = `{"username":"someone","password":"b"}` // reaches the database's sign-in limits
		case r.request == "PasswordChangeRequest":
			body = `{"username":"someone","password":"b","newPassword":"c"}`
		case r.request != "":
			body = `{}`
		}
		expect(r, "with the database closed", send(r, e.admin, "application/json", body), http.StatusServiceUnavailable)
	}
}

// A session's sign-out is a change like any other: without its CSRF token
// it is refused, and the session stays.
func TestSignOutNeedsTheCSRFToken(t *testing.T) {
	e := newSessionEnv(t, SessionOptions{})
	e.user("leaver", Viewer)
	code, cookie, csrf := e.signIn("leaver", "correct-horse-battery")
	mustStatus(t, "sign in", code, nil, http.StatusCreated)
	code, body := e.withSession(http.MethodDelete, "/api/v1/session", cookie, "", "")
	mustStatus(t, "sign out without the CSRF token", code, body, http.StatusForbidden)
	code, body = e.withSession(http.MethodDelete, "/api/v1/session", cookie, csrf, "")
	mustStatus(t, "sign out", code, body, http.StatusNoContent)
}
