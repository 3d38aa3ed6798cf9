package api

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A second sandbox is a connected target; a third cluster's kubeconfig
// points at a server that is gone. The overview reports both, the dead one
// within its timeout, and the health route scores the live one. Both
// answers are checked against the OpenAPI document too: this test has the
// live clusters they need.
func TestOverviewAndHealthOverConnectedClusters(t *testing.T) {
	e := newEnv(t, envOpts{management: true, fleet: true})
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	notReady := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
	for _, n := range []sandbox.Node{
		{Name: "a", Conditions: ready, Labels: map[string]string{"node.kubernetes.io/instance-type": "t3.medium"}},
		{Name: "b", Conditions: notReady, Labels: map[string]string{"node.kubernetes.io/instance-type": "t3.medium"}},
	} {
		if err := target.AddNode(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	dead, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	deadKubeconfig := string(dead.Kubeconfig)
	dead.Stop()

	connect := func(name, kc string) store.Cluster {
		code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": name, "provider": "aws", "kubeconfig": kc})
		mustStatus(t, "connect "+name, code, body, 202)
		return decode[store.Cluster](t, body)
	}
	live := connect("live", string(target.Kubeconfig))
	connect("gone", deadKubeconfig)

	start := time.Now()
	code, body := e.do(http.MethodGet, "/api/v1/federation/overview", e.viewer, nil)
	mustStatus(t, "overview", code, body, 200)
	took := time.Since(start)
	mustMatchDoc(t, http.MethodGet, "/api/v1/federation/overview", code, body)
	ov := decode[federation.Overview](t, body)
	if len(ov.Clusters) != 2 || ov.Summary.Clusters != 2 {
		t.Fatalf("overview = %s", body)
	}
	rows := map[string]federation.Row{}
	for _, r := range ov.Clusters {
		rows[r.Name] = r
	}
	if l := rows["live"]; !l.Reachable || l.NodesTotal != 2 || l.NodesReady != 1 || l.MonthlyCost <= 0 || l.Badge == "" {
		t.Errorf("live row = %+v", l)
	}
	if g := rows["gone"]; g.Reachable || g.Error == "" {
		t.Errorf("gone row = %+v", g)
	}
	// Each row carries the cluster's status and its badge as the list
	// gives them (just connected: Pending, amber), so the page needs no
	// second request; neither is Ready yet.
	for name, r := range rows {
		if r.Status != "Pending" || r.StatusBadge != BadgeAmber {
			t.Errorf("%s row status %q badge %q, want Pending and amber from the cluster list", name, r.Status, r.StatusBadge)
		}
	}
	if ov.Summary.Ready != 0 {
		t.Errorf("summary ready = %d, want 0 (no cluster is Ready)", ov.Summary.Ready)
	}
	if ov.Summary.NodesReady != 1 || ov.Summary.NodesTotal != 2 || ov.Summary.MonthlyCost != rows["live"].MonthlyCost {
		t.Errorf("summary = %+v", ov.Summary)
	}
	if took > 30*time.Second {
		t.Errorf("a dead cluster held the overview for %v (timeout 10s)", took)
	}

	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+live.ID+"/health", e.viewer, nil)
	mustStatus(t, "health", code, body, 200)
	mustMatchDoc(t, http.MethodGet, "/api/v1/clusters/{id}/health", code, body)
	if !strings.Contains(string(body), "node-not-ready") || !strings.Contains(string(body), "requests") {
		t.Errorf("health = %s; want the not-ready node among the findings and usage from requests", body)
	}

	// A viewer's kubeconfig reaches the cluster through the proxy with a
	// token of its own that expires; the cluster's credential is not in it,
	// and the cluster's own kubeconfig is for admins only.
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+live.ID+"/kubeconfig", e.viewer, nil)
	mustStatus(t, "viewer's kubeconfig", code, body, 200)
	mustMatchDoc(t, http.MethodGet, "/api/v1/clusters/{id}/kubeconfig", code, body)
	checkProxyKubeconfig(t, decode[clusterKubeconfig](t, body), live.ID, target.Config)
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+live.ID+"/kubeconfig?admin=true", e.viewer, nil)
	mustStatus(t, "viewer asking for the admin kubeconfig", code, body, 403)

	// An admin's kubeconfig of the live cluster reaches it; a cluster with
	// none stored yet is a 409.
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+live.ID+"/kubeconfig?admin=true", e.admin, nil)
	mustStatus(t, "kubeconfig", code, body, 200)
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(decode[clusterKubeconfig](t, body).Kubeconfig))
	if err != nil {
		t.Fatalf("the kubeconfig served does not load: %v", err)
	}
	nodes, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 2 {
		t.Errorf("listing nodes with the kubeconfig served: %v (%d nodes, want 2)", err, len(nodes.Items))
	}
	pending := &store.Cluster{Name: "no-kubeconfig", Provider: "aws", Source: store.SourceConnectedExisting, Status: "Pending"}
	if err := e.st.CreateCluster(ctx, pending); err != nil {
		t.Fatal(err)
	}
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+pending.ID+"/kubeconfig", e.admin, nil)
	mustStatus(t, "kubeconfig of a cluster with none", code, body, 409)
	code, body = e.do(http.MethodGet, "/api/v1/clusters/no-such-id/kubeconfig", e.admin, nil)
	mustStatus(t, "kubeconfig of no cluster", code, body, 404)
	audit := decode[auditPage](t, adminGet(t, e, "/api/v1/audit?target="+live.ID))
	if len(audit.Items) == 0 || audit.Items[0].Route != "/api/v1/clusters/:id/kubeconfig" || audit.Items[0].Actor != "test-platform-admin" {
		t.Errorf("reading the kubeconfig is not audited: %+v", audit.Items)
	}
}

// checkProxyKubeconfig checks a user's kubeconfig: its server is the
// proxy for cluster id, its credential a token of its own that expires
// within hours, and nothing of the cluster's own credential is in it.
func checkProxyKubeconfig(t *testing.T, kc clusterKubeconfig, id string, cluster *rest.Config) {
	t.Helper()
	// Loaded, not turned into a rest.Config: client-go sends no token to
	// an http:// server, and this test server is one.
	cfg, err := clientcmd.Load([]byte(kc.Kubeconfig))
	if err != nil {
		t.Fatalf("the user's kubeconfig does not load: %v", err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil || cfg.AuthInfos[ctx.AuthInfo] == nil {
		t.Fatalf("the user's kubeconfig has no complete current context:\n%s", kc.Kubeconfig)
	}
	server, token := cfg.Clusters[ctx.Cluster].Server, cfg.AuthInfos[ctx.AuthInfo].Token
	if !strings.HasSuffix(server, "/k8s/clusters/"+id) || !strings.HasPrefix(token, "kop_") {
		t.Errorf("user's kubeconfig reaches %s with token %.4s..., want the proxy and a KubeOpera token", server, token)
	}
	if kc.ExpiresAt == nil || time.Until(*kc.ExpiresAt) > userKubeconfigTTL || time.Until(*kc.ExpiresAt) < userKubeconfigTTL-time.Minute {
		t.Errorf("user's kubeconfig expires at %v, want in %s", kc.ExpiresAt, userKubeconfigTTL)
	}
	for _, secret := range [][]byte{cluster.CertData, cluster.KeyData, cluster.CAData, []byte(cluster.BearerToken)} {
		if len(secret) > 0 && strings.Contains(kc.Kubeconfig, base64.StdEncoding.EncodeToString(secret)) {
			t.Error("the user's kubeconfig carries the cluster's own credential")
		}
	}
}

func adminGet(t *testing.T, e *env, path string) []byte {
	t.Helper()
	code, body := e.do(http.MethodGet, path, e.admin, nil)
	mustStatus(t, "GET "+path, code, body, 200)
	return body
}
