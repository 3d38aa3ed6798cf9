package api

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// brokenRegistry is a management cluster that refuses every change.
type brokenRegistry struct{ hostclusters.Unconfigured }

var errUpstream = errors.New("connection refused by the management cluster")

func (brokenRegistry) Create(context.Context, hostclusters.Spec) error { return errUpstream }
func (brokenRegistry) Delete(context.Context, string) error            { return errUpstream }
func (brokenRegistry) Exists(context.Context, string) (bool, error)    { return false, errUpstream }
func (brokenRegistry) Teardown(context.Context, string) (hostclusters.Observed, error) {
	return hostclusters.Observed{}, errUpstream
}
func (brokenRegistry) Retry(context.Context, string) (hostclusters.Observed, error) {
	return hostclusters.Observed{}, errUpstream
}
func (brokenRegistry) Update(context.Context, string, *int, string) (hostclusters.Observed, error) {
	return hostclusters.Observed{}, errUpstream
}

// brokenFleet cannot list clusters; it reads no kubeconfig for a cluster
// named "no-kubeconfig" and fails to read the others'.
type brokenFleet struct{}

func (brokenFleet) Targets(context.Context) ([]federation.Target, error) { return nil, errUpstream }
func (brokenFleet) Target(_ context.Context, row store.Cluster) (federation.Target, bool, error) {
	if row.Name == "no-kubeconfig" {
		return federation.Target{}, false, nil
	}
	return federation.Target{}, false, errUpstream
}

type brokenInspector struct{}

func (brokenInspector) Inspect(context.Context) (inspect.Inventory, error) {
	return inspect.Inventory{}, errUpstream
}
func (brokenInspector) Nodes(context.Context) ([]inspect.NodeInfo, error) { return nil, errUpstream }

// What the routes answer when what they depend on fails: 502 when the
// management cluster, a cluster or the server's own cluster fails to
// answer, 409 for a name in use or a cluster with no kubeconfig yet. Each
// answer is also checked against the document (env.send).
func TestRoutesAnswerUpstreamFailures(t *testing.T) {
	e := newEnv(t, envOpts{inspector: brokenInspector{},
		registry: func(hostclusters.Registry) hostclusters.Registry { return brokenRegistry{} }})
	ctx := context.Background()
	cred, other := createAccessKey(t, e, "upstream"), createAccessKey(t, e, "other")
	taken := &store.Cluster{Name: "taken", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	pending := &store.Cluster{Name: "no-kubeconfig", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"}
	eksRow := &store.Cluster{Name: "eks-ready", Provider: "aws", Source: store.SourceProvisionedEKS, Status: "Ready"}
	// Any other plugin's cluster is torn down the same way (the local
	// provider's, for one).
	pluginRow := &store.Cluster{Name: "local-ready", Provider: "local", Plugin: "local", Source: store.SourceProvisioned, Status: "Ready"}
	failed := &store.Cluster{Name: "local-failed", Provider: "local", Plugin: "local", Source: store.SourceProvisioned, Status: "Failed"}
	for _, c := range []*store.Cluster{taken, pending, eksRow, pluginRow, failed} {
		if err := e.st.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	eks := func(name string) map[string]any {
		return provisionBody(name, "aws-eks", map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "apiAllowedCIDRs": "203.0.113.0/24"})
	}
	connect := map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git",
		"name": "fresh", "provider": "aws", "kubeconfig": goodKubeconfig}
	for _, c := range []struct {
		what, method, path string
		body               any
		want               int
	}{
		{"connect, the HostCluster refused", http.MethodPost, "/api/v1/clusters/connect", connect, 502},
		{"provision, the HostCluster refused", http.MethodPost, "/api/v1/clusters/provision", eks("new-eks"), 502},
		{"provision under a name in use", http.MethodPost, "/api/v1/clusters/provision", eks("taken"), 409},
		{"disconnect, the HostCluster not deleted", http.MethodDelete, "/api/v1/clusters/" + taken.ID, nil, 502},
		{"register-self, inspection failed", http.MethodPost, "/api/v1/clusters/register-self", nil, 502},
		{"teardown, the request not recorded", http.MethodPost, "/api/v1/clusters/" + eksRow.ID + "/teardown", map[string]string{"confirmName": "eks-ready"}, 502},
		{"teardown of another plugin's cluster", http.MethodPost, "/api/v1/clusters/" + pluginRow.ID + "/teardown", map[string]string{"confirmName": "local-ready"}, 502},
		{"scale, the HostCluster not changed", http.MethodPatch, "/api/v1/clusters/" + pluginRow.ID, map[string]int{"nodeCount": 3}, 502},
		{"retry, the request not recorded", http.MethodPost, "/api/v1/clusters/" + failed.ID + "/retry", nil, 502},
		{"scale of a cluster that does not exist", http.MethodPatch, "/api/v1/clusters/nope", map[string]int{"nodeCount": 3}, 404},
		{"a credential renamed to a label in use", http.MethodPatch, "/api/v1/credentials/" + other.ID, map[string]string{"label": "upstream"}, 409},
	} {
		if code, body := e.do(c.method, c.path, e.admin, c.body); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.what, code, body, c.want)
		}
	}

	e.app = New(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Fleet: brokenFleet{}, Logger: discardLogger()})
	for _, c := range []struct {
		what, path string
		want       int
	}{
		{"overview, the clusters not listed", "/api/v1/federation/overview", 502},
		{"health, the kubeconfig not read", "/api/v1/clusters/" + taken.ID + "/health", 502},
		{"health, no kubeconfig yet", "/api/v1/clusters/" + pending.ID + "/health", 409},
		{"kubeconfig, not read", "/api/v1/clusters/" + taken.ID + "/kubeconfig", 502},
	} {
		if code, body := e.do(http.MethodGet, c.path, e.admin, nil); code != c.want {
			t.Errorf("%s: %d %s, want %d", c.what, code, body, c.want)
		}
	}
}
