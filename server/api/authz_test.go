package api

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// Every route in the table answers anonymous callers 401 and viewers 403
// unless the route allows them, and never refuses an admin; the login token
// of a disabled platform admin is refused (401) wherever a role is needed.
// The users routes are in the table, platform-admin only.
func TestEveryRouteChecksItsRole(t *testing.T) {
	e := newEnv(t, envOpts{})
	disabledAdmin := e.disabledAdminToken()
	for _, key := range []string{"GET /api/v1/users", "POST /api/v1/users", "DELETE /api/v1/users/:id",
		"POST /api/v1/users/:id/disable", "POST /api/v1/users/:id/enable", "POST /api/v1/users/:id/password-reset",
		"DELETE /api/v1/users/:id/sessions", "GET /api/v1/users/:id/tokens", "DELETE /api/v1/users/:id/tokens/:tokenId"} {
		i := slices.IndexFunc(routes, func(r route) bool { return routeKey(r) == key })
		if i < 0 || routes[i].role != PlatformAdmin {
			t.Errorf("%s: not in the route table as a platform-admin route", key)
		}
	}
	for _, r := range routes {
		path := pathParamRE.ReplaceAllString(r.path, "00000000-0000-0000-0000-000000000000")
		body := any(nil)
		if r.method == http.MethodPost {
			body = "{}"
		}
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			viewerToken, adminToken := e.viewer, e.admin
			if routeKey(r) == "DELETE /api/v1/session" { // revokes the token that calls it
				viewerToken, adminToken = e.token(Viewer), e.token(PlatformAdmin)
			}
			anon, _ := e.do(r.method, path, "", body)
			viewer, _ := e.do(r.method, path, viewerToken, body)
			admin, _ := e.do(r.method, path, adminToken, body)
			switch servedRole(r, false) {
			case Anonymous:
				if anon == 401 || anon == 403 {
					t.Errorf("anonymous got %d on a public route", anon)
				}
			case Viewer:
				if anon != 401 || viewer == 401 || viewer == 403 {
					t.Errorf("anonymous %d (want 401), viewer %d (want allowed)", anon, viewer)
				}
			case PlatformAdmin:
				if anon != 401 || viewer != 403 {
					t.Errorf("anonymous %d (want 401), viewer %d (want 403)", anon, viewer)
				}
			}
			if admin == 401 || admin == 403 {
				t.Errorf("admin refused with %d", admin)
			}
			if servedRole(r, false) != Anonymous {
				if code, _ := e.do(r.method, path, disabledAdmin, body); code != 401 {
					t.Errorf("a disabled admin's login token got %d, want 401", code)
				}
			}
		})
	}
}

func TestInvalidTokenIs401(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodGet, "/api/v1/clusters", "kop_not-a-token", nil)
	if code != 401 || !strings.Contains(string(body), "not valid") {
		t.Fatalf("status %d, body %s", code, body)
	}
}

func TestOpenAPIDocumentsExactlyTheRoutes(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodGet, "/openapi.json", "", nil)
	mustStatus(t, "openapi", code, body, 200)
	doc := decode[struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}](t, body)
	documented := map[string]bool{}
	for p, ops := range doc.Paths {
		for m := range ops {
			documented[strings.ToUpper(m)+" "+p] = true
		}
	}
	served := map[string]bool{}
	for _, r := range e.app.GetRoutes(true) {
		if r.Method == http.MethodHead || r.Path == "/" { // fiber adds HEAD for GET; "/" is the 404 catch-all
			continue
		}
		served[r.Method+" "+openAPIPath(r.Path)] = true
	}
	for k := range served {
		if !documented[k] {
			t.Errorf("route %s is not in /openapi.json", k)
		}
	}
	for k := range documented {
		if !served[k] {
			t.Errorf("/openapi.json documents %s, which is not served", k)
		}
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") || len(served) != len(routes) {
		t.Errorf("openapi %q, %d routes served, %d in the table", doc.OpenAPI, len(served), len(routes))
	}
}

func TestUnknownRouteAndOversizedBodyAreProblems(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodGet, "/api/v1/nope", e.admin, nil)
	if code != 404 || !strings.Contains(string(body), "openapi.json") {
		t.Errorf("unknown route: %d %s", code, body)
	}
	// The body limit is enforced by the HTTP server before routing, so this
	// needs a real listener rather than app.Test.
	resp := announceOversizedBody(t, e.listen(t), "/api/v1/clusters/connect", e.admin)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(string(b), "limit") {
		t.Errorf("oversized body: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, p := range []string{"/healthz", "/readyz"} {
		if code, body := e.do(http.MethodGet, p, "", nil); code != 200 {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
	e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	code, body := e.do(http.MethodGet, "/metrics", e.viewer, nil)
	if code != 200 || !strings.Contains(string(body), `kubeopera_http_requests_total{code="200",method="GET",route="/api/v1/clusters"} 1`) {
		t.Errorf("metrics: %d\n%s", code, body)
	}
	if code, _ := e.do(http.MethodGet, "/metrics", "", nil); code != http.StatusUnauthorized {
		t.Errorf("anonymous /metrics by default: %d, want 401", code)
	}
	public := newEnv(t, envOpts{publicMetrics: true})
	if code, _ := public.do(http.MethodGet, "/metrics", "", nil); code != http.StatusOK {
		t.Errorf("anonymous /metrics with --public-metrics: %d, want 200", code)
	}
}

// listen serves the app on a loopback port until the test ends and returns
// its address, for what app.Test cannot show: the HTTP server's own limits,
// and real connections.
func (e *env) listen(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = e.app.Listener(ln) }()
	tb.Cleanup(func() { _ = e.app.Shutdown() })
	return ln.Addr().String()
}

// announceOversizedBody sends headers announcing a body one byte over the
// limit, and no body: the server must answer 413 from the headers alone.
// (Writing the whole body races the server closing the connection: the
// client then sees "connection reset" instead of the response, which makes
// a test flaky, not the server.)
func announceOversizedBody(t *testing.T, addr, path, token string) *http.Response {
	t.Helper()
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	return rawRequest(t, addr, fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n",
		path, auth, maxBodyBytes+1))
}

// rawRequest writes a request in one write and reads the answer, for
// requests the server refuses before reading them whole: net/http's client
// writes in chunks, and a chunk written after the server has answered and
// closed fails the round trip with "connection reset" before the answer is
// read.
func rawRequest(t *testing.T, addr, request string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
