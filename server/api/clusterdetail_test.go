package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/livecache"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The cluster page of a connected cluster, against real API servers: its
// nodes read live through the stored kubeconfig (and shared between polls
// for the cache's TTL), its HostCluster's conditions, newest events and
// Terraform Job from the management cluster, and the disconnect notice.
func TestClusterPageReadsNodesConditionsEventsAndJob(t *testing.T) {
	e := newEnv(t, envOpts{management: true, fleet: true})
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	for _, n := range []string{"cp-1", "worker-1"} {
		if err := target.AddNode(ctx, sandbox.Node{Name: n, Conditions: ready}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, map[string]string{"domain": "apps.example.com",
		"gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "live", "provider": "aws", "kubeconfig": string(target.Kubeconfig)})
	mustStatus(t, "connect", code, body, 202)
	id := decode[store.Cluster](t, body).ID
	transition := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	setHostClusterStatus(t, e.sb, id, map[string]any{"terraformJob": "provision-" + id, "workerNodeCount": int64(1), "conditions": []any{
		map[string]any{"type": "AccessValidated", "status": "True", "reason": "Reachable", "message": "the API server answered",
			"lastTransitionTime": transition.Format(time.RFC3339)},
	}})
	uid := recordEvents(t, e.sb, id, hostclusters.MaxEvents+2)

	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+id, e.viewer, nil)
	mustStatus(t, "get", code, body, 200)
	mustMatchDoc(t, http.MethodGet, "/api/v1/clusters/{id}", code, body)
	d := decode[clusterDetail](t, body)
	if len(d.Nodes) != 2 || d.Nodes[0].Name != "cp-1" || !d.Nodes[0].Ready || d.NodesError != "" {
		t.Errorf("nodes = %+v, error %q; want cp-1 and worker-1, read through the stored kubeconfig", d.Nodes, d.NodesError)
	}
	want := hostclusters.Condition{Type: "AccessValidated", Status: "True", Reason: "Reachable", Message: "the API server answered", LastTransitionTime: transition}
	if len(d.Conditions) != 1 || d.Conditions[0] != want {
		t.Errorf("conditions = %+v, want [%+v]", d.Conditions, want)
	}
	if len(d.Events) != hostclusters.MaxEvents || d.Events[0].Reason != fmt.Sprintf("Step%d", hostclusters.MaxEvents+1) ||
		d.Events[len(d.Events)-1].Reason != "Step2" || d.Events[0].Type != "Warning" {
		t.Errorf("events = %+v; want the %d newest (Step%d down to Step2), newest first", d.Events, hostclusters.MaxEvents, hostclusters.MaxEvents+1)
	}
	for _, ev := range d.Events {
		if ev.Reason == "Stale" {
			t.Errorf("an event of an earlier HostCluster of the same name (not UID %s) was served: %+v", uid, ev)
		}
	}
	if d.TerraformJob != "provision-"+id || d.DetailError != "" {
		t.Errorf("terraformJob = %q (detail error %q), want provision-%s", d.TerraformJob, d.DetailError, id)
	}
	if d.WorkerNodeCount == nil || *d.WorkerNodeCount != 1 {
		t.Errorf("workerNodeCount = %v, want 1 from the HostCluster's status (what a scale moves)", d.WorkerNodeCount)
	}
	if !strings.Contains(d.DisconnectNotice, "keep running there") || strings.Contains(d.DisconnectNotice, "costing") {
		t.Errorf("notice of a connected cluster = %q; want what keeps running, and no cloud bill (KubeOpera made none)", d.DisconnectNotice)
	}

	// A poll within the TTL is served from the shared read; after it, live.
	if err := target.Client.CoreV1().Nodes().Delete(ctx, "worker-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := mustDetail(t, e, id); len(got.Nodes) != 2 {
		t.Errorf("a poll right after the first read asked the cluster again: %d nodes, want the shared 2", len(got.Nodes))
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, livecache.DefaultTTL+5*time.Second, false, func(context.Context) (bool, error) {
		return len(mustDetail(t, e, id).Nodes) == 1, nil
	})
	if err != nil {
		t.Errorf("the deleted node is still served %v after the TTL (%v)", livecache.DefaultTTL+5*time.Second, err)
	}
}

// A cluster with no kubeconfig yet, and one whose API server accepts
// connections but never answers: each says why it has no nodes, the
// second within the page's timeout.
func TestClusterPageSaysWhyNodesAreMissing(t *testing.T) {
	e := newEnv(t, envOpts{management: true, fleet: true})
	ctx := context.Background()
	pending := &store.Cluster{Name: "pending", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"}
	if err := e.st.CreateCluster(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if d := mustDetail(t, e, pending.ID); d.Nodes != nil || !strings.Contains(d.NodesError, "once KubeOpera holds a kubeconfig") {
		t.Errorf("no kubeconfig: nodes %v, error %q", d.Nodes, d.NodesError)
	}

	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() { // accept and hold every connection, answering nothing
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	kc := strings.Replace(goodKubeconfig, "https://127.0.0.10:6443", "https://"+silent.Addr().String(), 1)
	code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, map[string]string{"domain": "apps.example.com",
		"gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "silent", "provider": "aws", "kubeconfig": kc})
	mustStatus(t, "connect", code, body, 202)
	start := time.Now()
	d := mustDetail(t, e, decode[store.Cluster](t, body).ID)
	if took := time.Since(start); took > liveReadTimeout+3*time.Second {
		t.Errorf("a silent cluster held the page for %v; the live reads are bounded by %v", took, liveReadTimeout)
	}
	if d.Nodes != nil || !strings.HasPrefix(d.NodesError, "could not read the nodes: ") {
		t.Errorf("silent cluster: nodes %v, error %q", d.Nodes, d.NodesError)
	}
}

// The notice a provisioned cluster's page shows is what its disconnect
// then answers: its infrastructure keeps running and costing money, and a
// teardown deletes it instead.
func TestDisconnectNoticeIsTheDisconnectsOwnWords(t *testing.T) {
	e := newEnv(t, envOpts{management: true, fleet: true})
	ctx := context.Background()
	row := &store.Cluster{Name: "made", Provider: "aws", Source: store.SourceProvisioned, Status: "Ready"}
	if err := e.st.CreateCluster(ctx, row); err != nil {
		t.Fatal(err)
	}
	// Its HostCluster, with the controller's finalizer (none runs here),
	// so the disconnect waits in Deleting as it does for real.
	hc := &unstructured.Unstructured{Object: map[string]any{"apiVersion": hostclusters.GVR.GroupVersion().String(), "kind": "HostCluster",
		"metadata": map[string]any{"name": row.ID, "namespace": hostclusters.Namespace, "finalizers": []any{hostclusters.Finalizer}},
		"spec":     map[string]any{"mode": "provision", "provider": "aws", "provisioning": map[string]any{"plugin": "local"}}}}
	hcs := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	if _, err := hcs.Create(ctx, hc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = hcs.Patch(context.Background(), row.ID, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	setPhase(t, e, row.ID, "Ready", "ready")
	// The page reads the HostCluster through the server's cache, which
	// sees the new status a moment later (longer on a loaded machine).
	var d clusterDetail
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if d = mustDetail(t, e, row.ID); d.Status == "Ready" || time.Now().After(deadline) {
			break
		}
	}
	notice := d.DisconnectNotice
	if !strings.Contains(notice, "keeps running and costing money") || !strings.Contains(notice, "/api/v1/clusters/"+row.ID+"/teardown") {
		t.Errorf("notice of a provisioned cluster = %q; want the running cost and the teardown instead", notice)
	}
	code, body := e.do(http.MethodDelete, "/api/v1/clusters/"+row.ID, e.admin, nil)
	mustStatus(t, "disconnect", code, body, 202)
	if got := decode[lifecycleResponse](t, body).Message; got != "disconnecting: "+notice {
		t.Errorf("disconnect answered %q; the page had said %q", got, notice)
	}

	busy := &store.Cluster{Name: "busy", Provider: "aws", Source: store.SourceProvisioned, Status: "Provisioning"}
	if err := e.st.CreateCluster(ctx, busy); err != nil {
		t.Fatal(err)
	}
	notice = mustDetail(t, e, busy.ID).DisconnectNotice
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+busy.ID, e.admin, nil)
	mustStatus(t, "disconnect while provisioning", code, body, 409)
	if got := decode[Problem](t, body).Detail; got != notice {
		t.Errorf("refusal %q; the page had said %q", got, notice)
	}
}

func mustDetail(t *testing.T, e *env, id string) clusterDetail {
	t.Helper()
	code, body := e.do(http.MethodGet, "/api/v1/clusters/"+id, e.viewer, nil)
	mustStatus(t, "get "+id, code, body, 200)
	return decode[clusterDetail](t, body)
}

// setHostClusterStatus writes status fields of HostCluster id as the
// controller would.
func setHostClusterStatus(t *testing.T, sb *sandbox.Sandbox, id string, status map[string]any) {
	t.Helper()
	ctx := context.Background()
	res := dynamic.NewForConfigOrDie(sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	o, err := res.Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o.Object["status"] = status
	if _, err := res.UpdateStatus(ctx, o, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// recordEvents records n events about HostCluster id, Step0 oldest, the
// newest a Warning, plus one about an earlier HostCluster of the same name
// (another UID), newest of all. It returns the HostCluster's UID.
func recordEvents(t *testing.T, sb *sandbox.Sandbox, id string, n int) string {
	t.Helper()
	ctx := context.Background()
	o, err := dynamic.NewForConfigOrDie(sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace).Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(sb.Config)
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	record := func(name, reason, typ, uid string, at time.Time) {
		ev := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: hostclusters.Namespace},
			InvolvedObject: corev1.ObjectReference{Kind: "HostCluster", APIVersion: hostclusters.GVR.GroupVersion().String(),
				Namespace: hostclusters.Namespace, Name: id, UID: o.GetUID()},
			Reason: reason, Message: reason + " happened", Type: typ, Count: 1, FirstTimestamp: metav1.NewTime(at), LastTimestamp: metav1.NewTime(at),
			Source: corev1.EventSource{Component: "host-cluster-controller"}}
		if uid != "" {
			ev.InvolvedObject.UID = "11111111-2222-3333-4444-555555555555"
		}
		if _, err := cs.CoreV1().Events(hostclusters.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		typ := corev1.EventTypeNormal
		if i == n-1 {
			typ = corev1.EventTypeWarning
		}
		record(fmt.Sprintf("%s.%d", id, i), fmt.Sprintf("Step%d", i), typ, "", base.Add(time.Duration(i)*time.Minute))
	}
	record(id+".stale", "Stale", corev1.EventTypeNormal, "other", base.Add(time.Duration(n)*time.Minute))
	return string(o.GetUID())
}
