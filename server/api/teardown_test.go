package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A provisioned cluster: no disconnect while it is being created (409,
// saying to wait or tear down); a teardown needs its name repeated, marks
// the HostCluster and keeps the row in TearingDown until the HostCluster
// is gone; once Ready a disconnect says the infrastructure keeps costing.
func TestTeardownAndDisconnectOfAProvisionedCluster(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	ctx := context.Background()
	cred := createAccessKey(t, e, "aws-prod")
	code, body := e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("eks-td", "aws-eks",
		map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "nodeCount": "3", "apiAllowedCIDRs": "203.0.113.0/24"}))
	mustStatus(t, "provision", code, body, 202)
	row := decode[store.Cluster](t, body)
	hcs := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	if obj, err := hcs.Get(ctx, row.ID, metav1.GetOptions{}); err != nil || obj.Object["spec"].(map[string]any)["displayName"] != "eks-td" {
		t.Errorf("HostCluster spec.displayName (kubectl's Cluster column) is not the cluster's name: %v", err)
	}

	setPhase(t, e, row.ID, "Provisioning", "aws-eks: creating the control plane (20%)")
	waitUntil(t, "the phase reaches the cache", func() bool {
		got, _ := e.do(http.MethodGet, "/api/v1/clusters/"+row.ID, e.viewer, nil)
		return got == 200 && mustGet(t, e, row.ID).Status == "Provisioning"
	})
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+row.ID, e.admin, nil)
	if code != 409 || !strings.Contains(string(body), "wait until it is Ready") || !strings.Contains(string(body), "/teardown") {
		t.Errorf("disconnect while provisioning: %d %s; want 409 saying to wait or tear down", code, body)
	}

	for _, bad := range []struct {
		token, body string
		code        int
	}{
		{e.viewer, `{"confirmName":"eks-td"}`, 403},
		{e.admin, `{"confirmName":"eks-tdx"}`, 400},
		{e.admin, `{}`, 400},
	} {
		if code, body := e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", bad.token, bad.body); code != bad.code {
			t.Errorf("teardown with %s: %d %s, want %d", bad.body, code, body, bad.code)
		}
	}
	obj, err := hcs.Get(ctx, row.ID, metav1.GetOptions{})
	if err != nil || obj.GetAnnotations()[v1alpha1.TeardownAnnotation] != "" {
		t.Fatalf("a refused teardown marked the HostCluster: %v %v", obj.GetAnnotations(), err)
	}
	code, body = e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", e.admin, `{"confirmName":"eks-td"}`)
	mustStatus(t, "teardown", code, body, 202)
	if r := decode[lifecycleResponse](t, body); r.Status != "TearingDown" || !strings.Contains(r.Message, "stays listed") {
		t.Errorf("teardown answer %+v", r)
	}
	obj, err = hcs.Get(ctx, row.ID, metav1.GetOptions{})
	if err != nil || obj.GetAnnotations()[v1alpha1.TeardownAnnotation] == "" {
		t.Fatalf("HostCluster not marked for teardown: %v %v", obj.GetAnnotations(), err)
	}
	if got := mustGet(t, e, row.ID); got.Badge != BadgeAmber {
		t.Errorf("a cluster being torn down: badge %q, want amber", got.Badge)
	}
	// The controller finishes and deletes the HostCluster: the row goes.
	if err := hcs.Delete(ctx, row.ID, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the row goes with the HostCluster", func() bool {
		code, _ := e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
		_, err := e.st.GetCluster(ctx, row.ID)
		return code == 200 && err != nil
	})

	// Once Ready, a disconnect only disconnects, and says what keeps running.
	code, body = e.do(http.MethodPost, "/api/v1/clusters/provision", e.admin, provisionBody("eks-ready", "aws-eks",
		map[string]string{"region": "eu-north-1", "credentialRef": cred.ID, "nodeCount": "3", "apiAllowedCIDRs": "203.0.113.0/24"}))
	mustStatus(t, "provision", code, body, 202)
	ready := decode[store.Cluster](t, body)
	setPhase(t, e, ready.ID, "Ready", "KubeOpera installed")
	waitUntil(t, "Ready reaches the cache", func() bool { return mustGet(t, e, ready.ID).Status == "Ready" })
	// No controller (so no finalizer) here: the HostCluster and the row go
	// at once. What a disconnect says of a provisioned cluster's
	// infrastructure is TestDisconnectNoticeIsTheDisconnectsOwnWords'.
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+ready.ID, e.admin, nil)
	mustStatus(t, "disconnect when Ready", code, body, 204)
	if code, body := e.do(http.MethodPost, "/api/v1/clusters/"+ready.ID+"/teardown", e.admin, `{"confirmName":"eks-ready"}`); code != 409 && code != 404 {
		t.Errorf("teardown after a disconnect: %d %s", code, body)
	}
}

// A connected cluster cannot be torn down.
func TestTeardownOfAConnectedClusterIsRefused(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin,
		map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "conn", "provider": "aws", "kubeconfig": goodKubeconfig})
	mustStatus(t, "connect", code, body, 202)
	row := decode[store.Cluster](t, body)
	code, body = e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", e.admin, `{"confirmName":"conn"}`)
	if code != 409 || !strings.Contains(string(body), "disconnect it instead") {
		t.Errorf("teardown of a connected cluster: %d %s", code, body)
	}
}

func mustGet(t *testing.T, e *env, id string) clusterView {
	t.Helper()
	code, body := e.do(http.MethodGet, "/api/v1/clusters/"+id, e.viewer, nil)
	mustStatus(t, "get "+id, code, body, 200)
	return decode[clusterView](t, body)
}

// Connect can make the host: of two racing host connects the database's
// one-host index lets one through (202) and answers the other 409; Get
// Started then clears.
func TestConnectAsHostRacesDecidedByTheIndex(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	codes := make(chan int, 2)
	for _, name := range []string{"host-a", "host-b"} {
		go func() {
			code, _ := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, map[string]any{"domain": "apps.example.com",
				"gitOpsRepoURL": "https://git.example.com/fleet.git", "name": name, "provider": "aws", "kubeconfig": goodKubeconfig, "isHost": true})
			codes <- code
		}()
	}
	got := map[int]int{<-codes: 1}
	got[<-codes]++
	if got[202] != 1 || got[409] != 1 {
		t.Errorf("two host connects answered %v, want one 202 and one 409", got)
	}
	code, body := e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	mustStatus(t, "list", code, body, 200)
	if l := decode[clusterList](t, body); len(l.Items) != 1 || !l.Items[0].IsHost || !l.HostRegistered {
		t.Errorf("after the race: %+v; want one host cluster and Get Started cleared", l)
	}
}
