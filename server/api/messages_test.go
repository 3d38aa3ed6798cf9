package api

import (
	"net/http"
	"strings"
	"testing"
)

// Client-facing messages: no plugin directory, no empty quotes for a
// missing provider, no doubled "kubeconfig: kubeconfig:".
func TestErrorMessagesAreTidy(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("p1", "", nil))
	if code != 400 || strings.Contains(string(body), `\"\"`) || !strings.Contains(string(body), "provider: is required") {
		t.Errorf("empty provider: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("p2", "ibm", nil))
	if code != 400 || strings.Contains(string(body), pluginDir) || !strings.Contains(string(body), `no provider plugin named \"ibm\"`) {
		t.Errorf("unknown provider: %d %s (must not name %s)", code, body, pluginDir)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin,
		`{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"a","provider":"aws","kubeconfig":"apiVersion: v1\nkind: Config\nclusters: [\n  - x: y\n  z"}`)
	if code != 400 || strings.Contains(string(body), "kubeconfig: kubeconfig") || !strings.Contains(string(body), "kubeconfig: line ") {
		t.Errorf("broken kubeconfig: %d %s", code, body)
	}
}
