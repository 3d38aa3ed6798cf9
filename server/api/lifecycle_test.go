package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// fakeRegistry is a management cluster in memory: HostClusters by ID.
type fakeRegistry struct {
	mu        sync.Mutex
	observed  map[string]hostclusters.Observed
	teardowns []string
	updates   []string
}

func (f *fakeRegistry) Create(_ context.Context, s hostclusters.Spec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.observed[s.ID] = hostclusters.Observed{Phase: "Pending"}
	return nil
}

func (f *fakeRegistry) List(context.Context) (map[string]hostclusters.Observed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]hostclusters.Observed{}
	for k, v := range f.observed {
		out[k] = v
	}
	return out, nil
}

// Delete leaves the HostCluster, as a finalizer would, until finish; it
// derives to Deleting meanwhile.
func (f *fakeRegistry) Delete(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if o, ok := f.observed[id]; ok {
		o.Phase = "Deleting"
		f.observed[id] = o
	}
	return nil
}

// Exists reports whether the fake holds id.
func (f *fakeRegistry) Exists(_ context.Context, id string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.observed[id]
	return ok, nil
}

func (f *fakeRegistry) finish(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.observed, id)
}

func (f *fakeRegistry) set(id string, o hostclusters.Observed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.observed[id] = o
}

// Teardown records the request, refused as the real one refuses it.
func (f *fakeRegistry) Teardown(_ context.Context, id string) (hostclusters.Observed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.observed[id]
	if !ok {
		return o, hostclusters.ErrNoHostCluster
	}
	if o.Phase == "Deleting" || o.Phase == "TearingDown" {
		return o, &hostclusters.RefusedError{Phase: o.Phase, Reason: "it is " + o.Phase}
	}
	f.teardowns = append(f.teardowns, id)
	o.Phase = "TearingDown"
	f.observed[id] = o
	return o, nil
}

// Update records the change of a Ready cluster.
func (f *fakeRegistry) Update(_ context.Context, id string, nodeCount *int, version string) (hostclusters.Observed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.observed[id]
	if !ok {
		return o, hostclusters.ErrNoHostCluster
	}
	if o.Phase != "Ready" {
		return o, &hostclusters.RefusedError{Phase: o.Phase, Reason: "it is " + o.Phase + ": change it once it is Ready"}
	}
	f.updates = append(f.updates, fmt.Sprintf("%s nodes=%v version=%s", id, deref(nodeCount), version))
	o.Phase = "Updating"
	f.observed[id] = o
	return o, nil
}

// Retry is not asked of this fake (retry_test.go uses a real API server).
func (f *fakeRegistry) Retry(context.Context, string) (hostclusters.Observed, error) {
	return hostclusters.Observed{}, hostclusters.ErrNoHostCluster
}

func deref(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// A disconnect keeps the row listed in Deleting, with the controller's
// progress, until the HostCluster is gone; the inventory the controller
// read reaches the row on read.
func TestDisconnectKeepsTheRowUntilTheHostClusterIsGone(t *testing.T) {
	reg := &fakeRegistry{observed: map[string]hostclusters.Observed{}}
	e := newEnv(t, envOpts{registry: func(hostclusters.Registry) hostclusters.Registry { return reg }})
	ctx := context.Background()
	row := &store.Cluster{Name: "prod", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	if err := e.st.CreateCluster(ctx, row); err != nil {
		t.Fatal(err)
	}
	reg.set(row.ID, hostclusters.Observed{Phase: "Ready", Message: "KubeOpera installed", KubernetesVersion: "v1.33.1", NodeCount: 3, ReadyNodeCount: 2})
	if v := mustGet(t, e, row.ID); v.KubernetesVersion != "v1.33.1" || v.NodeCount != 3 || v.ReadyNodeCount != 2 {
		t.Errorf("inventory on read: %+v", v.Cluster)
	}
	if stored, _ := e.st.GetCluster(ctx, row.ID); stored.NodeCount != 3 {
		t.Errorf("inventory not written back: %+v", stored)
	}

	code, body := e.do(http.MethodDelete, "/api/v1/clusters/"+row.ID, e.admin, nil)
	mustStatus(t, "disconnect", code, body, 202)
	// The controller has not reported Deleting yet: the row says Deleting anyway.
	if v := mustGet(t, e, row.ID); v.Status != "Deleting" || v.Badge != BadgeAmber {
		t.Errorf("right after the disconnect: %s (%s)", v.Status, v.Badge)
	}
	reg.set(row.ID, hostclusters.Observed{Phase: "Deleting", Message: "disconnecting: waiting for Flux to release Kustomization x"})
	if v := mustGet(t, e, row.ID); v.Message != "disconnecting: waiting for Flux to release Kustomization x" {
		t.Errorf("progress: %q", v.Message)
	}
	reg.finish(row.ID)
	code, body = e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	if l := decode[clusterList](t, body); code != 200 || len(l.Items) != 0 {
		t.Errorf("after the HostCluster went: %d %s", code, body)
	}
	if code, _ := e.do(http.MethodGet, "/api/v1/clusters/"+row.ID, e.viewer, nil); code != 404 {
		t.Errorf("get after the disconnect finished: %d", code)
	}
}

// Teardown: refused without the name or for a connected cluster; accepted
// for a provisioned one (the row in TearingDown), also while it still
// provisions, when a disconnect is refused.
func TestTeardownRequestAndTheProvisioningDisconnectRule(t *testing.T) {
	reg := &fakeRegistry{observed: map[string]hostclusters.Observed{}}
	e := newEnv(t, envOpts{registry: func(hostclusters.Registry) hostclusters.Registry { return reg }})
	ctx := context.Background()
	prov := &store.Cluster{Name: "eks-1", Provider: "aws", Source: store.SourceProvisionedEKS, Status: "Provisioning"}
	conn := &store.Cluster{Name: "conn", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
	for _, r := range []*store.Cluster{prov, conn} {
		if err := e.st.CreateCluster(ctx, r); err != nil {
			t.Fatal(err)
		}
		reg.set(r.ID, hostclusters.Observed{Phase: r.Status})
	}
	code, body := e.do(http.MethodDelete, "/api/v1/clusters/"+prov.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), "wait until it is Ready") {
		t.Errorf("disconnect while provisioning: %d %s", code, body)
	}
	if code, body := e.do(http.MethodPost, "/api/v1/clusters/"+prov.ID+"/teardown", e.admin, `{"confirmName":"eks-2"}`); code != 400 ||
		!strings.Contains(string(body), `repeat the cluster's name \"eks-1\"`) {
		t.Errorf("teardown with the wrong name: %d %s", code, body)
	}
	if code, body := e.do(http.MethodPost, "/api/v1/clusters/"+conn.ID+"/teardown", e.admin, `{"confirmName":"conn"}`); code != 409 {
		t.Errorf("teardown of a connected cluster: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/"+prov.ID+"/teardown", e.admin, `{"confirmName":"eks-1"}`)
	mustStatus(t, "teardown", code, body, 202)
	if len(reg.teardowns) != 1 || reg.teardowns[0] != prov.ID {
		t.Errorf("teardown requests on the registry: %v", reg.teardowns)
	}
	if v := mustGet(t, e, prov.ID); v.Status != "TearingDown" {
		t.Errorf("row after the teardown request: %s", v.Status)
	}
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+prov.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), "torn down") {
		t.Errorf("disconnect while tearing down: %d %s", code, body)
	}
	reg.finish(prov.ID)
	if code, _ := e.do(http.MethodGet, "/api/v1/clusters/"+prov.ID, e.viewer, nil); code != 404 {
		t.Errorf("get after the teardown finished: %d", code)
	}
}
