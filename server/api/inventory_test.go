package api

import (
	"context"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/inspect"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The self-registered host row's node counts follow the cluster: a node
// added after registration shows on a later read.
func TestHostRowInventoryRefreshesOnRead(t *testing.T) {
	sb, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	if err := sb.AddNode(context.Background(), sandbox.Node{Name: "n1", Conditions: ready}); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOpts{inspector: inspect.Inspector{Client: sb.Client}})
	code, body := e.do(http.MethodPost, "/api/v1/clusters/register-self", e.admin, nil)
	mustStatus(t, "register", code, body, 201)
	row := decode[store.Cluster](t, body)
	if row.NodeCount != 1 {
		t.Fatalf("registered with %d nodes, want 1", row.NodeCount)
	}
	if err := sb.AddNode(context.Background(), sandbox.Node{Name: "n2", Conditions: ready}); err != nil {
		t.Fatal(err)
	}
	old := hostInventoryEvery
	hostInventoryEvery = 0
	defer func() { hostInventoryEvery = old }()
	code, body = e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	mustStatus(t, "list", code, body, 200)
	if l := decode[clusterList](t, body); len(l.Items) != 1 || l.Items[0].NodeCount != 2 || l.Items[0].ReadyNodeCount != 2 {
		t.Errorf("host row after a node joined: %+v; want 2 nodes, 2 ready", l.Items)
	}
	if stored, _ := e.st.GetCluster(context.Background(), row.ID); stored.NodeCount != 2 {
		t.Errorf("stored host row: %d nodes, want 2", stored.NodeCount)
	}
}
