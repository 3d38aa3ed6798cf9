package api

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hashicorp/go-hclog"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/fleet"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/oidc"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// pluginDir holds the real provider plugins, built once for all tests.
var pluginDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubeopera-api-plugins-")
	if err != nil {
		panic(err)
	}
	pluginDir = dir
	code := 1
	// The real AWS plugins run with example keys: they must call no AWS.
	// Their Validate calls nothing with the preflight off, and any other
	// call (a destroy's sweep) meets a closed loopback port, not AWS.
	for k, v := range map[string]string{"KUBEOPERA_AWS_PREFLIGHT": "off", "AWS_ENDPOINT_URL": "http://127.0.0.1:9"} {
		if err := os.Setenv(k, v); err != nil {
			panic(err)
		}
	}
	// A file that is not a plugin, which GET /providers lists as skipped.
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("plugins go here\n"), 0o644); err != nil {
		panic(err)
	}
	if err := buildPlugins(dir, "aws-vanilla", "aws-eks", "gcp-stub", "local", helloExample); err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
		// The status coverage holds for a whole run of the package only.
		if f := flag.Lookup("test.run"); code == 0 && f != nil && f.Value.String() == "" && !testing.Short() {
			if missing := checkStatusCoverage(); len(missing) > 0 {
				fmt.Fprintf(os.Stderr, "FAIL: documented statuses not covered:\n  %s\n", strings.Join(missing, "\n  "))
				code = 1
			}
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// helloExample is the SDK README's example plugin. The SDK is a module of
// its own, so it is built by import path, not by directory.
const helloExample = "github.com/ochestra-tech/kubeopera/sdk/examples/hello"

func buildPlugins(dir string, names ...string) error {
	for _, n := range names { // a plugin of plugins/ by name, or an import path
		out, pkg := filepath.Join(dir, plugin.BinaryPrefix+path.Base(n)), "../../plugins/"+n
		if strings.Contains(n, ".") {
			pkg = n
		}
		if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %v\n%s", n, err, b)
		}
	}
	return nil
}

type env struct {
	t      testing.TB
	app    *fiber.App
	st     *store.Store
	keys   *sealing.Keyring
	admin  string
	viewer string
	logs   *testlog.Buffer
	sb     *sandbox.Sandbox
	dsn    string // the database: a SQLite file or a PostgreSQL URL
}

type envOpts struct {
	postgres   bool
	management bool // a sandbox with the HostCluster CRD as management cluster
	registry   func(hostclusters.Registry) hostclusters.Registry
	inspector  Inspector
	noSync     bool
	hash       func([]byte) ([]byte, error)
	setupDone  func(context.Context)
	fleet      bool // overview and health routes over the management cluster's stored kubeconfigs
	// allowUnsafe lets connect take unsafe kubeconfigs (a server setting)
	allowUnsafe bool
	// publicMetrics serves /metrics without a token (a server setting)
	publicMetrics bool
	// sso and passwordsOff are the sign-in settings
	sso          *oidc.Provider
	passwordsOff bool
	// defaults are the platform defaults of connect and provision
	defaults PipelineDefaults
}

var (
	hostOnce sync.Once
	host     *plugin.Host
	hostErr  error
)

// sharedHost starts the plugins once for the package; tests only call them.
func sharedHost(t testing.TB) *plugin.Host {
	hostOnce.Do(func() {
		host, hostErr = plugin.Open(context.Background(), plugin.Options{Dir: pluginDir, Logger: hclog.NewNullLogger()})
	})
	if hostErr != nil {
		t.Fatal(hostErr)
	}
	return host
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "kubeopera.db")
	if o.postgres {
		dsn = testpg.Database(t)
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keys, err := sealing.NewKeyring(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, st: st, keys: keys, logs: &testlog.Buffer{}, dsn: dsn}
	var reg hostclusters.Registry = hostclusters.Unconfigured{}
	if o.management {
		e.sb, err = sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.sb.Stop() })
		kube, err := hostclusters.NewKube(e.sb.Config)
		if err != nil {
			t.Fatal(err)
		}
		if err := kube.EnsureNamespace(ctx); err != nil {
			t.Fatal(err)
		}
		cacheCtx, stop := context.WithCancel(ctx)
		t.Cleanup(stop)
		if err := kube.StartCache(cacheCtx); err != nil {
			t.Fatal(err)
		}
		reg = kube
	}
	var fl Fleet
	if o.fleet {
		kube, _ := reg.(*hostclusters.Kube)
		fl = fleet.Source{Store: st, Stored: kube}
	}
	if o.registry != nil {
		reg = o.registry(reg)
	}
	e.app = New(Deps{Store: st, Keyring: keys, Providers: sharedHost(t), Registry: reg, Inspector: o.inspector,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), NoSyncOnRead: o.noSync, Fleet: fl, SetupSecret: testSetupSecret,
		hashPassword: o.hash, SetupDone: o.setupDone, AllowUnsafeKubeconfigs: o.allowUnsafe, PublicMetrics: o.publicMetrics, Defaults: o.defaults,
		SSO: o.sso, PasswordsOff: o.passwordsOff,
		Overview: federation.Options{Timeout: 10 * time.Second, Assess: fleet.Assess}})
	e.admin = e.token(PlatformAdmin)
	e.viewer = e.token(Viewer)
	return e
}

func (e *env) token(r Role) string {
	tok, hash := NewToken()
	if err := e.st.CreateToken(context.Background(), &store.Token{Name: "test-" + string(r), Role: string(r), Hash: hash}); err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// do sends a request with a JSON body (string or value) as token.
func (e *env) do(method, path, token string, body any) (int, []byte) {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) (int, []byte) {
	e.t.Helper()
	resp, err := e.app.Test(req, int((30 * time.Second).Milliseconds()))
	if err != nil {
		e.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	validateAnswer(e.t, req, resp, b)
	if resp.StatusCode >= 400 && resp.Header.Get("Content-Type") != "application/problem+json" {
		e.t.Errorf("%s %s: error %d served as %q, want application/problem+json", req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode, b
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %T: %v\n%s", v, err, b)
	}
	return v
}

func mustStatus(t *testing.T, what string, got int, body []byte, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: status %d, want %d; body: %s", what, got, want, body)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }
