package api

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

const goodKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster:
    server: https://127.0.0.10:6443
users:
- name: admin
  user:
    token: sekret-token-value-123456
contexts:
- name: prod
  context:
    cluster: prod
    user: admin
current-context: prod
`

// countingRegistry counts List calls, to prove sync-on-read makes one per
// request whatever the number of clusters.
type countingRegistry struct {
	hostclusters.Registry
	lists atomic.Int32
}

func (c *countingRegistry) List(ctx context.Context) (map[string]hostclusters.Observed, error) {
	c.lists.Add(1)
	return c.Registry.List(ctx)
}

func setPhase(t *testing.T, e *env, id, phase, msg string) {
	t.Helper()
	dyn := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	obj, err := dyn.Get(context.Background(), id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The conditions the controller would have written for phase, so
	// that DerivePhase, which the server applies to the live object, says
	// phase too.
	first := "Provisioned"
	if mode, _, _ := unstructured.NestedString(obj.Object, "spec", "mode"); mode == "connect_existing" {
		first = "AccessValidated"
	}
	cond := func(typ, status string) any {
		return map[string]any{"type": typ, "status": status, "reason": "Test", "message": msg,
			"lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": obj.GetGeneration()}
	}
	conds := map[string][]any{
		"Provisioning":      {cond(first, "False")},
		"ValidatingAccess":  {cond(first, "False")},
		"BootstrappingFlux": {cond(first, "True")},
		"Ready":             {cond(first, "True"), cond("Ready", "True")},
		"Failed":            {cond(first, "False"), cond("Stalled", "True")},
	}[phase]
	if conds == nil {
		t.Fatalf("setPhase does not know how the controller reaches %s", phase)
	}
	_ = unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions")
	_ = unstructured.SetNestedField(obj.Object, obj.GetGeneration(), "status", "observedGeneration")
	_ = unstructured.SetNestedField(obj.Object, phase, "status", "phase")
	_ = unstructured.SetNestedField(obj.Object, msg, "status", "message")
	if _, err := dyn.UpdateStatus(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestConnectValidatesThenHandsOverAndSyncsOnRead(t *testing.T) {
	counter := &countingRegistry{}
	e := newEnv(t, envOpts{management: true, registry: func(r hostclusters.Registry) hostclusters.Registry {
		counter.Registry = r
		return counter
	}})
	ctx := context.Background()
	bad := []struct {
		name, body, field, says string
	}{
		{"yaml error names its line", `{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"a","provider":"aws","kubeconfig":"apiVersion: v1\nkind: Config\nclusters: [\n  - x: y\n  z"}`, "kubeconfig", "line"},
		{"empty kubeconfig", `{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"a","provider":"aws","kubeconfig":""}`, "kubeconfig", "empty"},
		{"exec plugin refused", `{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"a","provider":"aws","kubeconfig":` + jsonString(strings.Replace(goodKubeconfig,
			"    token: sekret-token-value-123456\n", "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws\n", 1)) + `}`, "kubeconfig", "exec plugin"},
		{"bad name", `{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"Prod_1","provider":"aws","kubeconfig":` + jsonString(goodKubeconfig) + `}`, "name", "DNS label"},
		{"connect needs the GitOps repository", `{"domain":"apps.example.com","name":"a","provider":"aws","kubeconfig":` + jsonString(goodKubeconfig) + `}`, "gitOpsRepoURL", "URL of the repository"},
		{"unknown provider", `{"domain":"apps.example.com","gitOpsRepoURL":"https://git.example.com/fleet.git","name":"a","provider":"ibm","kubeconfig":` + jsonString(goodKubeconfig) + `}`, "provider", "one of"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin, b.body)
			p := decode[Problem](t, body)
			if code != 400 || len(p.Fields) == 0 || p.Fields[0].Field != b.field || !strings.Contains(p.Fields[0].Message, b.says) {
				t.Errorf("status %d, problem %+v; want 400 on %s saying %q", code, p, b.field, b.says)
			}
		})
	}
	if rows, _ := e.st.ListClusters(ctx); len(rows) != 0 {
		t.Fatalf("rejected connects created rows: %+v", rows)
	}

	code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin,
		map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "prod", "provider": "aws", "region": "eu-north-1", "kubeconfig": goodKubeconfig})
	mustStatus(t, "connect", code, body, 202)
	row := decode[store.Cluster](t, body)
	if row.Status != "Pending" || row.Source != store.SourceConnectedExisting || row.IsHost {
		t.Errorf("row = %+v", row)
	}
	sec, err := e.sb.Client.CoreV1().Secrets(hostclusters.Namespace).Get(ctx, hostclusters.KubeconfigSecretName(row.ID), metav1.GetOptions{})
	if err != nil || string(sec.Data[hostclusters.KubeconfigSecretKey]) != goodKubeconfig {
		t.Fatalf("kubeconfig Secret: %v; stored bytes differ from the paste: %v", err, sec != nil)
	}

	code, body = e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin,
		map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "prod", "provider": "aws", "kubeconfig": goodKubeconfig})
	if code != 409 || !strings.Contains(string(body), `a cluster named \"prod\" already exists`) {
		t.Errorf("duplicate name: %d %s", code, body)
	}

	// The controller moves the cluster on; reads see it (once the watch
	// cache has it) and store it.
	setPhase(t, e, row.ID, "BootstrappingFlux", "installing Flux 2.4")
	waitUntil(t, "the phase reaches the cache", func() bool {
		got, _ := counter.Registry.List(ctx)
		return got[row.ID].Phase == "BootstrappingFlux"
	})
	before := counter.lists.Load()
	code, body = e.do(http.MethodGet, "/api/v1/clusters", e.viewer, nil)
	mustStatus(t, "list", code, body, 200)
	list := decode[clusterList](t, body)
	if len(list.Items) != 1 || list.Items[0].Status != "BootstrappingFlux" || list.Items[0].Message != "installing Flux 2.4" || list.HostRegistered {
		t.Errorf("list = %+v", list)
	}
	if n := counter.lists.Load() - before; n != 1 {
		t.Errorf("sync-on-read listed HostClusters %d times for one request", n)
	}
	stored, _ := e.st.GetCluster(ctx, row.ID)
	if stored.Status != "BootstrappingFlux" || !stored.UpdatedAt.After(row.UpdatedAt) {
		t.Errorf("write-back: stored %+v", stored)
	}
	code, body = e.do(http.MethodGet, "/api/v1/clusters/"+row.ID, e.viewer, nil)
	if code != 200 || decode[store.Cluster](t, body).Status != "BootstrappingFlux" {
		t.Errorf("get: %d %s", code, body)
	}

	// No controller runs here, so the HostCluster has no finalizer and
	// goes at once: nothing to wait for, the row goes with it (204). With
	// the finalizer the answer is 202 Deleting
	// (TestDisconnectNoticeIsTheDisconnectsOwnWords).
	code, body = e.do(http.MethodDelete, "/api/v1/clusters/"+row.ID, e.admin, nil)
	mustStatus(t, "disconnect", code, body, 204)
	waitUntil(t, "the HostCluster is gone", func() bool {
		got, _ := counter.Registry.List(ctx)
		return len(got) == 0
	})
	if code, _ := e.do(http.MethodGet, "/api/v1/clusters/"+row.ID, e.viewer, nil); code != 404 {
		t.Errorf("get after disconnect: %d", code)
	}
}

func TestConnectByUploadedFile(t *testing.T) {
	e := newEnv(t, envOpts{management: true})
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("name", "uploaded")
	_ = w.WriteField("provider", "other")
	_ = w.WriteField("domain", "apps.example.com")
	_ = w.WriteField("gitOpsRepoURL", "https://git.example.com/fleet.git")
	_ = w.WriteField("adminEmail", "ops@example.com")
	_ = w.WriteField("adminUsername", "opsadmin")
	fw, _ := w.CreateFormFile("kubeconfig", "config")
	_, _ = fw.Write([]byte(goodKubeconfig))
	w.Close()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/clusters/connect", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+e.admin)
	code, body := e.send(req)
	mustStatus(t, "upload", code, body, 202)
	// The form's pipeline fields reach the HostCluster.
	row := decode[store.Cluster](t, body)
	hc, err := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace).Get(context.Background(), row.ID, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git",
		"adminUsername": "opsadmin"} {
		if got, _, _ := unstructured.NestedString(hc.Object, "spec", field); got != want {
			t.Errorf("HostCluster spec.%s = %q, want %q", field, got, want)
		}
	}
}

func TestConnectWithoutManagementClusterCreatesNothing(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodPost, "/api/v1/clusters/connect", e.admin,
		map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "prod", "provider": "aws", "kubeconfig": goodKubeconfig})
	if code != 503 || !strings.Contains(string(body), "no management cluster configured") {
		t.Fatalf("status %d: %s", code, body)
	}
	if rows, _ := e.st.ListClusters(context.Background()); len(rows) != 0 {
		t.Errorf("rows created: %+v", rows)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
