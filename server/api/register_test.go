package api

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func TestRegisterSelfIsIdempotentByClusterUID(t *testing.T) {
	sb, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	for i, n := range []sandbox.Node{
		{Name: "cp-1", ProviderID: "aws:///eu-north-1a/i-0abc000000000001", Conditions: ready,
			Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}},
		{Name: "w-1", ProviderID: "aws:///eu-north-1b/i-0abc000000000002", Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}},
	} {
		if err := sb.AddNode(context.Background(), n); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	e := newEnv(t, envOpts{inspector: inspect.Inspector{Client: sb.Client}})

	code, body := e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	if code != 200 || decode[clusterList](t, body).HostRegistered {
		t.Fatalf("before registration: %d %s", code, body)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/register-self", e.admin, nil)
	mustStatus(t, "first register", code, body, 201)
	first := decode[store.Cluster](t, body)
	if !first.IsHost || first.Source != store.SourceSelfRegistered || first.Provider != "aws" || first.Region != "eu-north-1" ||
		first.NodeCount != 2 || first.ReadyNodeCount != 1 || first.KubernetesVersion != sandbox.KubernetesVersion || first.ClusterUID == nil {
		t.Errorf("row = %+v", first)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/register-self", e.admin, map[string]string{"name": "other-name"})
	mustStatus(t, "second register", code, body, 200)
	if again := decode[store.Cluster](t, body); again.ID != first.ID {
		t.Errorf("second call made a new row %s (first %s)", again.ID, first.ID)
	}
	code, body = e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	if l := decode[clusterList](t, body); code != 200 || len(l.Items) != 1 || !l.HostRegistered || l.Items[0].Badge != BadgeGreen {
		t.Errorf("after registration: %s", body)
	}
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+first.ID, e.viewer, nil)
	mustStatus(t, "get host", code, body, 200)
	got := decode[struct {
		Nodes []inspect.NodeInfo `json:"nodes"`
	}](t, body)
	if len(got.Nodes) != 2 {
		t.Fatalf("node breakdown: %s", body)
	}
	cp, w := got.Nodes[0], got.Nodes[1]
	if cp.Name != "cp-1" || !cp.Ready || len(cp.Roles) != 1 || cp.Roles[0] != "control-plane" || cp.Version != sandbox.KubernetesVersion ||
		cp.CPU.Capacity != "4" || cp.Memory.Allocatable != "16Gi" || len(cp.Conditions) != 1 {
		t.Errorf("cp-1 = %+v", cp)
	}
	if w.Ready || w.Conditions[0].Status != "False" {
		t.Errorf("w-1 = %+v", w)
	}
}

// distinctClusters pretends every call inspects a different cluster, so
// concurrent registrations contend for the one host row.
type distinctClusters struct{ n atomic.Int32 }

func (d *distinctClusters) Inspect(context.Context) (inspect.Inventory, error) {
	return inspect.Inventory{ClusterUID: fmt.Sprintf("uid-%d", d.n.Add(1)), Provider: "unknown"}, nil
}

func (d *distinctClusters) Nodes(context.Context) ([]inspect.NodeInfo, error) { return nil, nil }

func TestFiftyConcurrentHostRegistrationsOnPostgres(t *testing.T) {
	e := newEnv(t, envOpts{postgres: true, inspector: &distinctClusters{}})
	codes := make([]int, 50)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = e.do(http.MethodPost, "/api/v1/clusters/register-self", e.admin, map[string]string{"name": fmt.Sprintf("host-%d", i)})
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, c := range codes {
		count[c]++
	}
	if count[201] != 1 || count[409] != 49 {
		t.Fatalf("status counts %v, want one 201 and 49 409s", count)
	}
	rows, _ := e.st.ListClusters(context.Background())
	hosts := 0
	for _, r := range rows {
		if r.IsHost {
			hosts++
		}
	}
	if hosts != 1 || len(rows) != 1 {
		t.Errorf("%d rows, %d hosts", len(rows), hosts)
	}
}
