package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/controller"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
)

var listeningLine = regexp.MustCompile(`listening on (https?://\S+)`)

// `kubeopera server --with-controller`: a cluster connected through the
// server's API is reconciled by the controller in the same process (its
// finalizer set, its access validated) with no second process.
func TestServerWithControllerReconcilesWhatItsAPIHandsOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	token := strings.Repeat("t", 40)
	t.Setenv("KUBEOPERA_ADMIN_TOKEN", token)
	cmd := newServerCommand()
	var out, logs testlog.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&logs)
	cmd.SetArgs([]string{"--with-controller", "--kubeconfig", sb.KubeconfigPath, "--data-dir", t.TempDir(),
		"--listen", "127.0.0.1:0", "--plugin-dir", t.TempDir(), "--poll-interval", "250ms",
		"--flux-chart-repo", "http://127.0.0.1:1", "--chart-cache", t.TempDir()})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("server --with-controller: %v", err)
		}
	}()
	var url string
	waitUntil(t, 2*time.Minute, "the server listens", func() bool {
		m := listeningLine.FindStringSubmatch(out.String())
		if m != nil {
			url = m[1]
		}
		return m != nil
	})
	body := `{"name":"self","provider":"aws","region":"eu-north-1","kubeconfig":` + jsonString(string(sb.Kubeconfig)) +
		`,"domain":"self.kubeopera.test","gitOpsRepoURL":"https://git.example.com/fleet.git"}`
	req, _ := http.NewRequest(http.MethodPost, url+"/api/v1/clusters/connect", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("connect: %v %v", err, resp)
	}
	resp.Body.Close()
	c, err := client.New(sb.Config, client.Options{Scheme: controllerScheme()})
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 2*time.Minute, "the in-process controller validates access", func() bool {
		var list v1.HostClusterList
		if err := c.List(ctx, &list); err != nil || len(list.Items) != 1 {
			return false
		}
		hc := list.Items[0]
		return meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAccessValidated) &&
			strings.Contains(strings.Join(hc.Finalizers, ","), controller.Finalizer)
	})
	if !strings.Contains(out.String(), "host-cluster-controller starting") {
		t.Errorf("the controller did not say it started:\n%s", out.String())
	}
}

func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
