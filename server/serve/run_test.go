package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
)

const (
	secretKey       = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	kubeconfigToken = "kubeconfig-bearer-token-0123456789"
)

// A full run of the server: first start on an empty data directory, a
// connect, a credential, graceful shutdown; the logs never contain a token,
// a secret key or kubeconfig content.
func TestFullRunLogsNoSecretsAndShutsDownGracefully(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	plugins := t.TempDir()
	// aws-eks runs with an example key: it must call no AWS (see
	// server/api's TestMain).
	t.Setenv("KUBEOPERA_AWS_PREFLIGHT", "off")
	t.Setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")
	if out, err := exec.Command("go", "build", "-o", filepath.Join(plugins, "kubeopera-provider-aws-eks"), "../../plugins/aws-eks").CombinedOutput(); err != nil {
		t.Fatalf("build plugin: %v\n%s", err, out)
	}
	data := t.TempDir()
	cfg := Config{DataDir: data, Listen: "127.0.0.1:0", PluginDir: plugins, ManagementKubeconfig: sb.KubeconfigPath,
		Getenv: func(string) (string, bool) { return "", false }}
	var out, logs testlog.Buffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg, &out, &logs, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("server exited: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		t.Fatal("server did not start")
	}
	tokenBytes, err := os.ReadFile(filepath.Join(data, "admin-token"))
	if err != nil {
		t.Fatalf("first admin token: %v; output:\n%s", err, out.String())
	}
	admin := strings.TrimSpace(string(tokenBytes))
	if st, _ := os.Stat(filepath.Join(data, "admin-token")); st.Mode().Perm() != 0o600 {
		t.Errorf("admin-token mode %v", st.Mode().Perm())
	}
	// A marker in the pasted kubeconfig shows whether its content leaks.
	kc := "# " + kubeconfigToken + "\n" + string(sb.Kubeconfig)

	call := func(method, path string, body any) int {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, "http://"+addr+path, rd)
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := call("POST", "/api/v1/clusters/connect", map[string]string{"domain": "apps.example.com", "gitOpsRepoURL": "https://git.example.com/fleet.git", "name": "target", "provider": "other", "kubeconfig": kc}); c != 202 {
		t.Errorf("connect: %d", c)
	}
	if c := call("POST", "/api/v1/credentials", map[string]string{"label": "aws", "kind": "access_key",
		"accessKeyId": "AKIAIOSFODNN7EXAMPLE", "secretAccessKey": secretKey}); c != 201 {
		t.Errorf("credential: %d", c)
	}
	if c := call("GET", "/api/v1/clusters", nil); c != 200 {
		t.Errorf("list: %d", c)
	}
	checkProxyReachesTarget(t, addr, admin)
	setupSecret := firstAdmin(t, addr, filepath.Join(data, "setup-secret"))
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("shutdown: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not shut down")
	}
	all := out.String() + logs.String()
	for _, secret := range []string{admin, setupSecret, secretKey, kubeconfigToken, "certificate-authority-data", "client-key-data"} {
		if strings.Contains(all, secret) {
			t.Errorf("output or logs contain %.12s…", secret)
		}
	}
	for _, want := range []string{"admin-token", "listening on http://" + addr, "shutting down", "generated an encryption key", "setup-secret"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("operator output lacks %q:\n%s", want, out.String())
		}
	}
	// connect, credential, two cluster lists, setup: the proxy's request
	// is not logged line by line (it is counted as a read).
	if n := strings.Count(logs.String(), `"msg":"request"`); n != 5 {
		t.Errorf("%d request log lines, want 5:\n%s", n, logs.String())
	}

	// A second start keeps the token and key; a wrong key is a startup error.
	cfg.Getenv = func(k string) (string, bool) {
		if k == "KUBEOPERA_ENCRYPTION_KEY" {
			return strings.Repeat("A", 43) + "=", true
		}
		return "", false
	}
	err = Run(context.Background(), cfg, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "not configured") {
		t.Errorf("start with the wrong key = %v, want an error naming the missing key", err)
	}
}

// firstAdmin creates the first administrator with the setup secret a local
// first start wrote, and checks the secret's file is gone afterwards.
func firstAdmin(t *testing.T, addr, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("setup secret: %v", err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("setup-secret mode %v", st.Mode().Perm())
	}
	secret := strings.TrimSpace(string(b))
	body := `{"email":"ops@example.com","username":"ops","password":"first-admin-password"}`
	req, _ := http.NewRequest("POST", "http://"+addr+"/api/v1/setup/admin", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-KubeOpera-Setup-Secret", secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Errorf("first admin with the setup secret: %d", resp.StatusCode)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the used setup secret's file is still there (%v)", err)
	}
	return secret
}

// checkProxyReachesTarget asks the connected cluster for its namespaces
// through the server's /k8s/ proxy: the target itself answers, judging the
// impersonated user (its RBAC has no binding for KubeOpera's groups here,
// so the answer is its 403 naming that user).
func checkProxyReachesTarget(t *testing.T, addr, token string) {
	t.Helper()
	get := func(path string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body
	}
	_, body := get("/api/v1/clusters")
	var list struct {
		Items []struct{ ID string } `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil || len(list.Items) != 1 {
		t.Fatalf("cluster list %s: %v", body, err)
	}
	code, body := get("/k8s/clusters/" + list.Items[0].ID + "/api/v1/namespaces")
	if code != http.StatusForbidden || !strings.Contains(string(body), `User \"kubeopera:token:`) {
		t.Errorf("namespaces through the proxy: %d %s, want the target's 403 for the impersonated user", code, body)
	}
}
