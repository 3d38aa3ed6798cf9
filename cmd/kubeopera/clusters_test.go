package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/server/serve"
	"github.com/ochestra-tech/kubeopera/server/store"
)

const cliPassword = "correct-horse-battery-staple"

// startCLIServer runs `kubeopera server` (SQLite, no management cluster)
// with an admin user "ops" and a viewer "eve" (password cliPassword) and
// the given clusters in its database, and returns its URL.
func startCLIServer(t *testing.T, clusters ...store.Cluster) string {
	t.Helper()
	return startCLIServerIn(t, t.TempDir(), clusters...)
}

// startCLIServerIn is startCLIServer on the data directory dir.
func startCLIServerIn(t *testing.T, dir string, clusters ...store.Cluster) string {
	t.Helper()
	return startCLIServerArgs(t, dir, []string{"--kubeconfig", "", "--self-kubeconfig", ""}, clusters...)
}

// startCLIServerArgs is startCLIServerIn with the server's flags for
// reaching (or not) a management cluster.
func startCLIServerArgs(t *testing.T, dir string, kubeArgs []string, clusters ...store.Cluster) string {
	t.Helper()
	t.Setenv("KUBEOPERA_DATABASE_URL", "")
	for _, u := range []struct{ name, role string }{{"ops", "platform-admin"}, {"eve", "viewer"}} {
		if out, err := runCLI(t, cliPassword+"\n", "users", "create", "--data-dir", dir, "--username", u.name,
			"--email", u.name+"@example.com", "--role", u.role, "--password-stdin"); err != nil {
			t.Fatalf("users create %s: %v\n%s", u.name, err, out)
		}
	}
	st, err := serve.OpenStore(context.Background(), serve.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clusters {
		if err := st.CreateCluster(context.Background(), &c); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	cmd := newServerCommand()
	var out, logs testlog.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&logs)
	cmd.SetArgs(append([]string{"--data-dir", dir, "--listen", "127.0.0.1:0", "--plugin-dir", t.TempDir()}, kubeArgs...))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("server: %v\n%s", err, logs.String())
		}
	})
	var url string
	waitUntil(t, time.Minute, "the server listens", func() bool {
		if m := listeningLine.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
		}
		return url != ""
	})
	return url
}

// runCLI runs the kubeopera command line with stdin and returns what it
// printed (stdout and stderr) and its error.
func runCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCommand()
	var out bytes.Buffer
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// The CLI against a real server: login stores a context (mode 0600),
// clusters are listed and shown in every format, problems come back as one
// line with the exit code for their status, and logout revokes the token.
func TestCLIAgainstARealServer(t *testing.T) {
	url := startCLIServer(t,
		store.Cluster{Name: "prod", Provider: "aws", Region: "eu-north-1", Source: store.SourceProvisionedEKS, Plugin: "aws-eks", Status: "Ready", KubernetesVersion: "v1.33.1", NodeCount: 3, ReadyNodeCount: 3},
		store.Cluster{Name: "edge", Provider: "gcp", Source: store.SourceConnectedExisting, Status: "Failed", Message: "unreachable"})
	config := t.TempDir() + "/kubeopera/config.yaml"
	t.Setenv("KUBEOPERA_CONFIG", config)
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")

	if _, err := runCLI(t, "", "clusters", "list"); exitCodeOf(err) != exitAuth {
		t.Errorf("list before login: %v (exit %d), want exit %d", err, exitCodeOf(err), exitAuth)
	}
	if out, err := runCLI(t, "wrong-password\n", "login", url, "-u", "ops", "--password-stdin"); exitCodeOf(err) != exitAuth ||
		!strings.Contains(err.Error(), "401 Unauthorized: wrong username or password") {
		t.Errorf("login with a wrong password: %v (exit %d)\n%s", err, exitCodeOf(err), out)
	}
	out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin", "--context", "lab", "--ttl", "2h")
	if err != nil || !strings.Contains(out, `logged in to `+url+` as ops (context "lab"`) {
		t.Fatalf("login: %v\n%s", err, out)
	}
	if fi, err := os.Stat(config); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the config file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	cfg, _, err := loadConfig()
	if err != nil || cfg.CurrentContext != "lab" || len(cfg.Contexts) != 1 || !strings.HasPrefix(cfg.Contexts[0].Token, "kop_") ||
		cfg.Contexts[0].ExpiresAt == nil || time.Until(*cfg.Contexts[0].ExpiresAt) > 2*time.Hour {
		t.Fatalf("the stored context: %v %+v", err, cfg)
	}
	token := cfg.Contexts[0].Token

	out, err = runCLI(t, "", "clusters", "list")
	if err != nil || !strings.Contains(out, "NAME") || !strings.Contains(out, "prod") || !strings.Contains(out, "Failed") {
		t.Errorf("clusters list: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "clusters", "list", "--phase", "Ready", "-o", "json")
	var items []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 || items[0]["name"] != "prod" {
		t.Errorf("clusters list --phase Ready -o json: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "clusters", "get", "prod", "-o", "yaml")
	if err != nil || !strings.Contains(out, "name: prod") || !strings.Contains(out, "kubernetes_version: v1.33.1") || !strings.Contains(out, "badge: green") {
		t.Errorf("clusters get -o yaml: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "", "clusters", "get", "prod", "-o", "wide"); err != nil || !strings.Contains(out, "eu-north-1") {
		t.Errorf("clusters get -o wide: %v\n%s", err, out)
	}
	// Shell completion asks the server for the names.
	if out, err = runCLI(t, "", "__complete", "clusters", "get", ""); err != nil || !strings.Contains(out, "prod\tReady") || !strings.Contains(out, "edge\tFailed") {
		t.Errorf("completion of cluster names: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "clusters", "get", "nope"); exitCodeOf(err) != exitNotFound {
		t.Errorf("get of no cluster: %v (exit %d)", err, exitCodeOf(err))
	}
	// No management cluster: a teardown cannot run (503), a disconnect is
	// immediate (204).
	_, err = runCLI(t, "", "clusters", "teardown", "prod", "--yes")
	if exitCodeOf(err) != exitUnavailable || strings.Count(err.Error(), "\n") != 0 || !strings.HasPrefix(err.Error(), "503 Service Unavailable: ") {
		t.Errorf("teardown without a management cluster: %v (exit %d), want one line and exit %d", err, exitCodeOf(err), exitUnavailable)
	}
	// Day 2: the server refuses what no plugin can do (409), before any
	// change; the CLI refuses a scale with no count itself.
	if _, err = runCLI(t, "", "clusters", "scale", "prod"); exitCodeOf(err) != exitUsage {
		t.Errorf("scale without --nodes: %v (exit %d), want %d", err, exitCodeOf(err), exitUsage)
	}
	_, err = runCLI(t, "", "clusters", "scale", "prod", "--nodes", "4")
	if exitCodeOf(err) != exitConflict || !strings.Contains(err.Error(), "aws-eks is not loaded") {
		t.Errorf("scale of a cluster whose plugin is not loaded: %v (exit %d), want exit %d naming the plugin", err, exitCodeOf(err), exitConflict)
	}
	_, err = runCLI(t, "", "clusters", "upgrade", "edge", "--version", "1.38")
	if exitCodeOf(err) != exitConflict || !strings.Contains(err.Error(), "not provisioned by KubeOpera") {
		t.Errorf("upgrade of a connected cluster: %v (exit %d), want exit %d", err, exitCodeOf(err), exitConflict)
	}
	if out, err = runCLI(t, "", "clusters", "disconnect", "edge", "--yes"); err != nil || !strings.Contains(out, "edge: disconnected") {
		t.Errorf("disconnect: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "clusters", "watch", "edge"); exitCodeOf(err) != exitNotFound {
		t.Errorf("watch of a disconnected cluster: %v (exit %d), want %d", err, exitCodeOf(err), exitNotFound)
	}
	if out, err = runCLI(t, "", "credentials", "list"); err != nil || !strings.Contains(out, "LABEL") {
		t.Errorf("credentials list: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "", "providers", "list", "-o", "json"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("providers list with no plugins: %v\n%s", err, out)
	}

	// A viewer may list but not disconnect.
	if _, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "eve", "--password-stdin", "--context", "viewer"); err != nil {
		t.Fatal(err)
	}
	if _, err = runCLI(t, "", "clusters", "disconnect", "prod", "--yes"); exitCodeOf(err) != exitForbidden {
		t.Errorf("a viewer's disconnect: %v (exit %d), want %d", err, exitCodeOf(err), exitForbidden)
	}
	out, err = runCLI(t, "", "context", "list")
	if err != nil || !regexp.MustCompile(`(?m)^\*\s+viewer\s`).MatchString(out) || strings.Contains(out, "kop_") {
		t.Errorf("context list: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "context", "use", "nope"); exitCodeOf(err) != exitUsage {
		t.Errorf("context use of no context: %v", err)
	}
	if out, err = runCLI(t, "", "context", "use", "lab"); err != nil {
		t.Fatalf("context use lab: %v\n%s", err, out)
	}
	if cfg, _, _ := loadConfig(); cfg.CurrentContext != "lab" {
		t.Fatalf("context use lab left %q current", cfg.CurrentContext)
	}
	if out, err = runCLI(t, "", "logout"); err != nil || !strings.Contains(out, `logged out of context "lab"; its token is revoked`) {
		t.Errorf("logout: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "clusters", "list", "--server", url, "--token", token); exitCodeOf(err) != exitAuth {
		t.Errorf("the logged-out token still works: %v", err)
	}
	// A viewer's logout revokes its token too, and says so.
	cfg, _, _ = loadConfig()
	viewerToken := cfg.Contexts[0].Token
	if out, err = runCLI(t, "", "logout", "viewer"); err != nil || !strings.Contains(out, `logged out of context "viewer"; its token is revoked`) {
		t.Errorf("a viewer's logout: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "clusters", "list", "--server", url, "--token", viewerToken); exitCodeOf(err) != exitAuth {
		t.Errorf("the logged-out viewer token still works: %v", err)
	}
}

// Tokens and the audit log through the API: an admin logged in creates,
// lists and revokes a token, and sees it all in the audit log.
func TestTokensAndAuditThroughTheAPI(t *testing.T) {
	url := startCLIServer(t)
	t.Setenv("KUBEOPERA_CONFIG", t.TempDir()+"/config.yaml")
	t.Setenv("KUBEOPERA_SERVER", "")
	t.Setenv("KUBEOPERA_TOKEN", "")
	t.Setenv("KUBEOPERA_DATA_DIR", "")
	if out, err := runCLI(t, cliPassword+"\n", "login", url, "-u", "ops", "--password-stdin"); err != nil {
		t.Fatalf("login: %v\n%s", err, out)
	}
	out, err := runCLI(t, "", "tokens", "create", "--name", "ci", "--role", "viewer", "--ttl", "1h")
	if err != nil || !strings.HasPrefix(out, "kop_") {
		t.Fatalf("tokens create: %v\n%s", err, out)
	}
	ci := strings.Fields(out)[0]
	if out, err = runCLI(t, "", "clusters", "list", "--server", url, "--token", ci); err != nil {
		t.Errorf("the created token cannot list clusters: %v\n%s", err, out)
	}
	out, err = runCLI(t, "", "tokens", "list", "-o", "json")
	if err != nil || !strings.Contains(out, `"name": "ci"`) || strings.Contains(out, ci) {
		t.Errorf("tokens list: %v\n%s", err, out)
	}
	if out, err = runCLI(t, "", "tokens", "revoke", "ci"); err != nil || !strings.Contains(out, `revoked viewer token "ci"`) {
		t.Errorf("tokens revoke: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "clusters", "list", "--server", url, "--token", ci); exitCodeOf(err) != exitAuth {
		t.Errorf("a revoked token still works: %v", err)
	}
	out, err = runCLI(t, "", "audit", "--actor", "login:ops")
	if err != nil || !strings.Contains(out, "POST /api/v1/tokens") || !strings.Contains(out, "DELETE /api/v1/tokens/:id") {
		t.Errorf("audit: %v\n%s", err, out)
	}
	if _, err = runCLI(t, "", "tokens", "create", "--name", "x", "--role", "root"); exitCodeOf(err) != exitUsage {
		t.Errorf("a bad role: %v", err)
	}
}
