package api

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// Fiber reuses its request buffers: a label taken from c.Method() without a
// copy changes under the metric once the next request arrives, and two label
// sets that end up equal make every scrape fail. After mixed traffic the
// scrape still answers and names only real methods.
func TestMetricsSurviveMixedTraffic(t *testing.T) {
	e := newEnv(t, envOpts{})
	for range 5 {
		e.do(http.MethodPost, "/api/v1/credentials", e.admin, map[string]string{"label": ""})
		e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
		e.do(http.MethodDelete, "/api/v1/clusters/nope", e.admin, nil)
		e.do(http.MethodGet, "/healthz", "", nil)
		e.do(http.MethodPatch, "/api/v1/credentials/nope", e.admin, map[string]string{})
	}
	for i := range 3 {
		code, body := e.do(http.MethodGet, "/metrics", e.viewer, nil)
		if code != 200 {
			t.Fatalf("scrape %d: %d\n%s", i, code, body)
		}
	}
	_, body := e.do(http.MethodGet, "/metrics", e.viewer, nil)
	methods := regexp.MustCompile(`kubeopera_http_requests_total\{[^}]*method="([^"]*)"`).FindAllStringSubmatch(string(body), -1)
	seen := map[string]bool{}
	for _, m := range methods {
		seen[m[1]] = true
	}
	for m := range seen {
		switch m {
		case "GET", "POST", "DELETE", "PATCH":
		default:
			t.Errorf("metrics count a method %q that was never sent", m)
		}
	}
	for _, want := range []string{"GET", "POST", "DELETE", "PATCH"} {
		if !seen[want] {
			t.Errorf("no request counted for %s:\n%s", want, grepLines(string(body), "kubeopera_http_requests_total"))
		}
	}
	for _, line := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(line, `"method":"GETE"`) || strings.Contains(line, `"method":"POS"`) {
			t.Errorf("a log line has a mangled method: %s", line)
		}
	}
}

func grepLines(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
