package k8sproxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
)

// What the proxy refuses itself, answered as a Kubernetes Status that
// kubectl prints, without forwarding anything to the cluster.
func TestProxyRefusesBeforeForwarding(t *testing.T) {
	up := newEchoUpstream(t)
	e := startProxy(t, clusters{"c1": up.target()}, time.Second)
	tok, _ := e.token(t, "viewer", api.Viewer)
	revoked, revokedID := e.token(t, "gone", api.Viewer)
	if _, err := e.st.RevokeToken(t.Context(), revokedID, ""); err != nil {
		t.Fatal(err)
	}
	base := e.srv.URL + k8sproxy.PathPrefix
	for _, tc := range []struct {
		name, method, url, token string
		body                     io.Reader
		length                   int64
		status                   int
		says                     string
	}{
		{"no credential", http.MethodGet, base + "c1/api/v1/pods", "", nil, 0, 401, "missing bearer token"},
		{"a revoked token", http.MethodGet, base + "c1/api/v1/pods", revoked, nil, 0, 401, "revoked or has expired"},
		{"an unknown cluster", http.MethodGet, base + "nope/api/v1/pods", tok, nil, 0, 404, `cluster "nope" does not exist`},
		{"a body over the API's 3 MiB", http.MethodPost, base + "c1/api/v1/namespaces/default/configmaps", tok,
			strings.NewReader(strings.Repeat("x", k8sproxy.MaxBodyBytes+1)), k8sproxy.MaxBodyBytes + 1, 413, "larger than"},
		{"a viewer's pod proxy", http.MethodGet, base + "c1/api/v1/namespaces/default/pods/web/proxy/", tok, nil, 0, 403, "only for platform admins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, tc.url, tc.body)
			req.ContentLength = tc.length
			if tc.token != "" {
				req.Header.Set("Authorization", "Bearer "+tc.token)
			}
			before := up.count()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var st struct {
				Kind    string `json:"kind"`
				Message string `json:"message"`
				Code    int    `json:"code"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || st.Kind != "Status" || st.Code != tc.status || !strings.Contains(st.Message, tc.says) {
				t.Errorf("%d %+v, want %d saying %q", resp.StatusCode, st, tc.status, tc.says)
			}
			if up.count() != before {
				t.Errorf("the request reached the cluster")
			}
		})
	}
}
