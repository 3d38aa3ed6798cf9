package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/internal/testkit/testlog"
	"github.com/ochestra-tech/kubeopera/server/serve"
)

var mgmtScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1.AddToScheme(s)
	return s
}()

// installed is a real KubeOpera server standing in for the one Flux
// installs on the target (kwok runs no containers), behind a proxy that
// records every first-admin call.
type installed struct {
	URL     string
	DataDir string
	mu      sync.Mutex
	calls   []adminCall
}

type adminCall struct {
	Password string
	// Setup is the X-KubeOpera-Setup-Secret header the call carried.
	Setup  string
	Status int
	UserID string
}

func startInstalled(t *testing.T) *installed {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	data := t.TempDir()
	cfg := serve.Config{DataDir: data, Listen: "127.0.0.1:0", PluginDir: t.TempDir(),
		Getenv: func(string) (string, bool) { return "", false }}
	var out, logs testlog.Buffer
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve.Run(ctx, cfg, &out, &logs, ready) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("KubeOpera server exited: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		t.Fatal("KubeOpera server did not start")
	}
	t.Cleanup(func() { cancel(); <-done })
	in := &installed{DataDir: data}
	backend, _ := url.Parse("http://" + addr)
	proxy := httputil.NewSingleHostReverseProxy(backend)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != setupPath {
			proxy.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct{ Password string }
		_ = json.Unmarshal(body, &req)
		r.Body = io.NopCloser(bytes.NewReader(body))
		setup := r.Header.Get(v1.SetupSecretHeader)
		// The server checks the header against its own secret (written at
		// its first start); the proxy records the pipeline's for the test.
		if own, err := os.ReadFile(filepath.Join(data, "setup-secret")); err == nil {
			r.Header.Set(v1.SetupSecretHeader, strings.TrimSpace(string(own)))
		}
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		var resp struct{ ID string }
		_ = json.Unmarshal(rec.Body.Bytes(), &resp)
		in.mu.Lock()
		in.calls = append(in.calls, adminCall{Password: req.Password, Setup: setup, Status: rec.Code, UserID: resp.ID})
		in.mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(srv.Close)
	in.URL = srv.URL
	return in
}

func (in *installed) adminCalls() []adminCall {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]adminCall(nil), in.calls...)
}

// management is a host cluster with the HostCluster CRD and its namespace.
func management(t *testing.T) (*sandbox.Sandbox, client.Client) {
	t.Helper()
	sb, err := sandbox.Start(context.Background(), sandbox.Options{CRDDirs: []string{filepath.Join("..", "..", "config", "crd", "bases")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Stop() })
	c, err := client.New(sb.Config, client.Options{Scheme: mgmtScheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1.Namespace}}); err != nil {
		t.Fatal(err)
	}
	return sb, c
}

func createSecret(t *testing.T, c client.Client, name string, typ corev1.SecretType, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.Namespace}, Type: typ, StringData: data}
	if err := c.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}
