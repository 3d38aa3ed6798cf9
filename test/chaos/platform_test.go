package chaos

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/childproc"
	"github.com/ochestra-tech/kubeopera/internal/devenv"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// platform is KubeOpera as the chart runs it, on this machine: the server
// and the controller as separate processes (bin/kubeopera) on one
// PostgreSQL and one management cluster, with the provider plugins of
// bin/plugins. devenv gives what `kubeopera dev` runs around them (the
// management sandbox with the CRDs, the git server, the Flux chart
// repository, Flux's controllers per onboarded cluster); `kubeopera dev`
// itself cannot run the server and the controller apart.
type platform struct {
	env        *devenv.Env
	pg         *postgres
	server     *component
	controller *component
	url, token string
	mc         client.Client
	// logs holds the server's and the controller's logs; kept when the
	// test fails.
	logs string
}

// keptLogs is a directory for the processes' logs that outlives a failed
// test (the environment's own directory is removed at its end).
func keptLogs(t *testing.T) string {
	dir, err := os.MkdirTemp("", "kubeopera-chaos-logs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's and the controller's logs are kept in %s", dir)
			return
		}
		_ = os.RemoveAll(dir)
	})
	return dir
}

func startPlatform(ctx context.Context, t *testing.T) *platform {
	t.Helper()
	root, err := childproc.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "bin")
	for _, f := range []string{"kubeopera", "plugins/kubeopera-provider-local"} {
		if _, err := os.Stat(filepath.Join(bin, f)); err != nil {
			t.Fatalf("bin/%s: run 'make build' first (make test-chaos does): %v", f, err)
		}
	}
	p := &platform{pg: startPostgres(ctx, t), logs: keptLogs(t)}
	if p.env, err = devenv.Start(ctx); err != nil {
		t.Fatalf("management sandbox, git server and chart repository (bin/k8s and bin/flux come from 'make testbin'): %v", err)
	}
	// Runs after the environment stops: a cluster leaked without its
	// directory is out of the provider's sight, and must not outlive the
	// test that found it.
	clusters := p.env.LocalClusters
	t.Cleanup(func() {
		for _, pid := range pidsNaming(clusters) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	t.Cleanup(func() {
		if err := p.env.Stop(); err != nil {
			t.Errorf("stop the environment: %v", err)
		}
	})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1.AddToScheme(scheme)
	if p.mc, err = client.New(p.env.Management.Config, client.Options{Scheme: scheme}); err != nil {
		t.Fatal(err)
	}
	env, err := p.processEnv()
	if err != nil {
		t.Fatal(err)
	}
	p.server, p.controller = p.serverProcess(t, bin, env), p.controllerProcess(t, bin, env)
	for _, c := range []*component{p.server, p.controller} {
		t.Cleanup(c.stop)
		if err := c.start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// processEnv is the environment of both processes: one encryption key and
// the first admin token (a PostgreSQL database is shared, so neither may
// make its own), the local provider's directory and the sandbox binaries.
func (p *platform) processEnv() ([]string, error) {
	key, token := make([]byte, 32), make([]byte, 24)
	_, _ = rand.Read(key)
	_, _ = rand.Read(token)
	p.token = hex.EncodeToString(token)
	testbin, err := sandbox.BinDir()
	if err != nil {
		return nil, err
	}
	return append(os.Environ(), "KUBEOPERA_ADMIN_TOKEN="+p.token,
		"KUBEOPERA_ENCRYPTION_KEY="+base64.StdEncoding.EncodeToString(key),
		"KUBEOPERA_LOCAL_CLUSTERS_DIR="+p.env.LocalClusters, "KUBEOPERA_TESTBIN_DIR="+testbin,
		"KUBEOPERA_AWS_PREFLIGHT=off"), nil
}

func (p *platform) serverProcess(t *testing.T, bin string, env []string) *component {
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	p.url = "http://" + listen
	return &component{name: "server", env: env, log: filepath.Join(p.logs, "server.log"),
		ready: httpReady(p.url + "/readyz"),
		args: []string{filepath.Join(bin, "kubeopera"), "server", "--database", p.pg.URL(), "--data-dir", t.TempDir(),
			"--listen", listen, "--plugin-dir", filepath.Join(bin, "plugins"),
			"--kubeconfig", p.env.Management.KubeconfigPath,
			"--default-gitops-repo-url", p.env.GitRepoURL, "--default-gitops-path", "clusters/{name}",
			"--default-domain", "{name}.kubeopera.test", "--default-git-credentials-secret", devenv.GitSecret}}
}

// controllerProcess elects a leader, as the chart's controller does: a
// restarted controller waits out the lease its killed self held.
func (p *platform) controllerProcess(t *testing.T, bin string, env []string) *component {
	probe := "127.0.0.1:" + strconv.Itoa(freePort(t))
	return &component{name: "controller", env: env, log: filepath.Join(p.logs, "controller.log"),
		ready: httpReady("http://" + probe + "/readyz"),
		args: []string{filepath.Join(bin, "kubeopera"), "controller", "--database", p.pg.URL(), "--data-dir", t.TempDir(),
			"--kubeconfig", p.env.Management.KubeconfigPath, "--plugin-dir", filepath.Join(bin, "plugins"),
			"--leader-elect=true", "--metrics-bind-address", "0", "--health-probe-bind-address", probe,
			"--repair-interval", envOr("KUBEOPERA_CHAOS_REPAIR_INTERVAL", "10s"), "--poll-interval", "2s",
			"--access-retry-window", "2m", "--concurrency", "4",
			"--flux-chart-repo", p.env.ChartRepoURL, "--chart-cache", t.TempDir()}}
}

// rows reads the clusters table itself: a list through the API would
// apply the server's read-path repairs first.
func (p *platform) rows(ctx context.Context) ([]row, error) {
	db := p.pg.open("kubeopera")
	defer db.Close()
	rs, err := db.QueryContext(ctx, "SELECT id, name, status FROM clusters")
	if err != nil {
		return nil, fmt.Errorf("read cluster rows: %w", err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.id, &r.name, &r.status); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rs.Err()
}

// observe is the world a classification looks at, or an error while a
// store is down (the caller looks again).
func (p *platform) observe(ctx context.Context) (world, error) {
	rows, err := p.rows(ctx)
	if err != nil {
		return world{}, err
	}
	var list v1.HostClusterList
	if err := p.mc.List(ctx, &list, client.InNamespace(v1.Namespace)); err != nil {
		return world{}, fmt.Errorf("list HostClusters: %w", err)
	}
	return world{rows: rows, hcs: list.Items, phase: v1.DerivePhase, local: p.local}, nil
}

// local reports what is left of local cluster id on this machine.
func (p *platform) local(id string) (bool, []int) {
	dir := filepath.Join(p.env.LocalClusters, id)
	_, err := os.Stat(dir)
	return err == nil, pidsNaming(dir)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
