package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A cluster KubeOpera already manages is not connected a second time,
// whatever kubeconfig reaches it: connect reads the target's kube-system
// namespace UID (here a real API server's) and answers 409 with the name
// it is managed under, found on a row (a connected cluster records its
// UID) or on a HostCluster whose controller read it (a provisioned
// cluster, or one that did not answer when it was connected).
func TestConnectRefusesAClusterAlreadyManaged(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	ks, err := kubernetes.NewForConfigOrDie(target.Config).CoreV1().Namespaces().Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid := string(ks.UID)
	connect := func(name, kubeconfig string) (int, []byte) {
		return e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, map[string]string{"domain": "apps.example.com",
			"gitOpsRepoURL": "https://git.example.com/fleet.git", "name": name, "provider": "aws", "kubeconfig": kubeconfig})
	}

	// Known to the controller only: connected while it did not answer
	// (no UID on its row), then read by the controller.
	kc, err := clientcmd.Load(target.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = "https://127.0.0.1:1"
	}
	b, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	unreachable := string(b)
	code, body := connect("made", unreachable)
	mustStatus(t, "connect while unreachable", code, body, 202)
	made := decode[store.Cluster](t, body)
	if made.ClusterUID != nil {
		t.Fatalf("a cluster that did not answer has UID %q on its row", *made.ClusterUID)
	}
	setHostClusterStatus(t, e.sb, made.ID, map[string]any{"clusterUID": uid})
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		code, body = connect("again", string(target.Kubeconfig))
		return code == http.StatusConflict, nil
	}); err != nil {
		t.Fatalf("connecting the cluster the controller knows as %q answered %d %s", made.Name, code, body)
	}
	if detail := decode[Problem](t, body).Detail; !strings.Contains(detail, `already managed by KubeOpera as "made"`) || !strings.Contains(detail, uid) {
		t.Errorf("refusal %q; want the name it is managed under and its UID", detail)
	}

	// Recorded on the row: the first connect of a reachable cluster
	// stores the UID, the second is refused with the first one's name.
	setHostClusterStatus(t, e.sb, made.ID, map[string]any{"clusterUID": "another-cluster"})
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		code, body = connect("first", string(target.Kubeconfig))
		return code == http.StatusAccepted, nil
	}); err != nil {
		t.Fatalf("connect once the cluster is no longer known: %d %s", code, body)
	}
	first := decode[store.Cluster](t, body)
	if row, err := e.st.GetClusterByUID(ctx, uid); err != nil || row.ID != first.ID {
		t.Fatalf("row by UID %s: %+v %v; want %s", uid, row, err, first.ID)
	}
	code, body = connect("second", string(target.Kubeconfig))
	mustStatus(t, "second connect", code, body, http.StatusConflict)
	if d := decode[Problem](t, body).Detail; !strings.Contains(d, `already managed by KubeOpera as "first"`) {
		t.Errorf("refusal %q; want the name it is managed under", d)
	}
	mustMatchDoc(t, http.MethodPost, "/api/v1/clusters/connect", code, body)
}
