package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// sendRaw returns the whole response of a request as token.
func (e *env) sendRaw(t *testing.T, req *http.Request, token string) *http.Response {
	t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := e.app.Test(req, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestEveryResponseCarriesSecurityHeaders(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct {
		method, path, token string
		noStore             bool
	}{
		{"GET", "/healthz", "", false},
		{"GET", "/openapi.json", "", false},
		{"GET", "/api/v1/clusters", e.viewer, true},
		{"GET", "/api/v1/credentials", e.admin, true},
		{"GET", "/api/v1/clusters", "", true},              // 401
		{"GET", "/api/v1/credentials/nope", e.admin, true}, // 404
		{"GET", "/nowhere", "", false},
	} {
		resp := e.sendRaw(t, httptest.NewRequest(tc.method, tc.path, nil), tc.token)
		name := tc.method + " " + tc.path
		for h, want := range map[string]string{
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
		} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("%s (%d): %s = %q, want %q", name, resp.StatusCode, h, got, want)
			}
		}
		if got := resp.Header.Get("Cache-Control"); tc.noStore && got != "no-store" {
			t.Errorf("%s (%d): Cache-Control = %q, want no-store", name, resp.StatusCode, got)
		}
	}
}

func TestWrongMethodAnswers405WithAllow(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct{ method, path, allow string }{
		{"PUT", "/api/v1/clusters", "GET"},
		{"POST", "/api/v1/clusters/abc", "DELETE, GET"},
		{"DELETE", "/api/v1/credentials", "GET, POST"},
		{"GET", "/api/v1/clusters/connect", "DELETE, GET, POST"},
	} {
		req := httptest.NewRequest(tc.method, tc.path, nil)
		resp := e.sendRaw(t, req, e.admin)
		if tc.method == "GET" {
			// /clusters/connect is also /clusters/:id, which GET takes.
			if resp.StatusCode == 405 {
				t.Errorf("GET %s: 405, but GET /clusters/:id matches it", tc.path)
			}
			continue
		}
		// Other routes may join these paths later: Allow must hold at least
		// the methods served today, never the refused one.
		allow := strings.Split(resp.Header.Get("Allow"), ", ")
		if resp.StatusCode != 405 || slices.Contains(allow, tc.method) {
			t.Errorf("%s %s: %d Allow %q, want 405 without %s", tc.method, tc.path, resp.StatusCode, allow, tc.method)
		}
		for _, m := range strings.Split(tc.allow, ", ") {
			if !slices.Contains(allow, m) {
				t.Errorf("%s %s: Allow %q lacks %s", tc.method, tc.path, allow, m)
			}
		}
	}
	if code, _ := e.do("GET", "/api/v1/nothing-here", e.admin, nil); code != 404 {
		t.Errorf("unknown path: %d, want 404", code)
	}
}

// The server always assigns the request ID it answers with and records;
// a client's well-formed X-Request-Id reaches the log line only.
func TestRequestIDIsAlwaysTheServers(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, tc := range []struct {
		id     string
		logged bool
	}{
		{"abc-123_XYZ.7:8", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"has space", false},
		{"tab\there", false},
		{"bell\x07", false},
		{"é-not-ascii", false},
	} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.Header.Set("X-Request-Id", tc.id)
		resp := e.sendRaw(t, req, "")
		got := resp.Header.Get("X-Request-Id")
		if got == tc.id || got == "" || !validRequestID(got) {
			t.Errorf("%q: answered with %q, want a new printable ID of the server's", tc.id, got)
		}
		if logged := strings.Contains(e.logs.String(), `"client_request_id":"`+tc.id+`"`); logged != tc.logged {
			t.Errorf("%q: in the log as client_request_id: %v, want %v", tc.id, logged, tc.logged)
		}
	}
	if strings.Contains(e.logs.String(), "bell\\u0007") || strings.Contains(e.logs.String(), strings.Repeat("a", 65)) {
		t.Errorf("a refused request ID reached the logs")
	}
}

// The bearer scheme is case-insensitive (RFC 9110 section 11.1).
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		req := httptest.NewRequest("GET", "/api/v1/clusters", nil)
		req.Header.Set("Authorization", scheme+" "+e.viewer)
		if code, body := e.send(req); code != 200 {
			t.Errorf("%q: %d %s", scheme, code, body)
		}
	}
	for _, h := range []string{"Basic " + e.viewer, "Bearer", "Bearer ", e.viewer} {
		req := httptest.NewRequest("GET", "/api/v1/clusters", nil)
		req.Header.Set("Authorization", h)
		if code, _ := e.send(req); code != 401 {
			t.Errorf("Authorization %.10q…: %d, want 401", h, code)
		}
	}
}

// HEAD is GET without the body, on every GET route, the health checks
// first: never the dashboard, never 405.
func TestHeadAnswersAsGetWithoutBody(t *testing.T) {
	e := newEnv(t, envOpts{})
	for _, path := range []string{"/healthz", "/readyz", "/openapi.json", "/api/v1/clusters", "/api/v1/providers"} {
		get := httptest.NewRequest(http.MethodGet, path, nil)
		get.Header.Set("Authorization", "Bearer "+e.viewer)
		getResp, err := e.app.Test(get, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		getResp.Body.Close()
		head := httptest.NewRequest(http.MethodHead, path, nil)
		head.Header.Set("Authorization", "Bearer "+e.viewer)
		resp, err := e.app.Test(head, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != getResp.StatusCode || len(body) != 0 || resp.Header.Get("Content-Type") != getResp.Header.Get("Content-Type") {
			t.Errorf("HEAD %s: %d %q with %d body bytes; GET gave %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"),
				len(body), getResp.StatusCode, getResp.Header.Get("Content-Type"))
		}
	}
	if code, _ := e.do(http.MethodHead, "/api/v1/clusters", "", nil); code != http.StatusUnauthorized {
		t.Errorf("HEAD without a token: %d, want 401 as GET", code)
	}
}
