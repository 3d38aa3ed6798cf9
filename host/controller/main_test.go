package controller

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/credresolve"
	"github.com/ochestra-tech/kubeopera/server/sealing"
	"github.com/ochestra-tech/kubeopera/server/store"
)

var (
	pluginDir          string
	skipNameValidation = true
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kubeopera-controller-plugins-")
	if err != nil {
		panic(err)
	}
	pluginDir = dir
	code := 1
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "kubeopera-provider-testcloud"), "./testdata/provider").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build test provider: %v\n%s", err, out)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1.AddToScheme(s)
	return s
}()

// env is a management sandbox with the HostCluster CRD, a real plugin host
// with the test provider, a credential store, and a running controller.
type env struct {
	t      testing.TB
	mgmt   *sandbox.Sandbox
	c      client.Client
	host   *plugin.Host
	creds  credresolve.Resolver
	stop   context.CancelFunc
	done   chan error
	window time.Duration
	// refreshBefore is the reconciler's RefreshBefore (default when zero).
	refreshBefore time.Duration
}

func newEnv(t testing.TB, polls int, targetKubeconfig []byte) *env {
	t.Helper()
	ctx := context.Background()
	state := t.TempDir()
	kcFile := filepath.Join(state, "target.kubeconfig")
	if err := os.WriteFile(kcFile, targetKubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TESTCLOUD_STATE", state)
	t.Setenv("TESTCLOUD_POLLS", fmt.Sprint(polls))
	t.Setenv("TESTCLOUD_KUBECONFIG", kcFile)
	mgmt, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mgmt.Stop() })
	fast := rest.CopyConfig(mgmt.Config) // the test's own client is not what is measured
	fast.QPS, fast.Burst = 1000, 2000
	c, err := client.New(fast, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: v1.Namespace}}); err != nil {
		t.Fatal(err)
	}
	host, err := plugin.Open(ctx, plugin.Options{Dir: pluginDir, Logger: hclog.NewNullLogger(), PassEnv: []string{"TESTCLOUD_*"}})
	if err != nil || len(host.Plugins()) != 1 {
		t.Fatalf("plugin host: %v %v", err, host.Skipped())
	}
	t.Cleanup(host.Close)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	keys, _ := sealing.NewKeyring(bytes.Repeat([]byte{1}, 32))
	e := &env{t: t, mgmt: mgmt, c: c, host: host, creds: credresolve.Resolver{Store: st, Keyring: keys}, window: 3 * time.Second}
	e.start()
	t.Cleanup(e.halt)
	return e
}

// start runs a controller manager until halt.
func (e *env) start() {
	cfg := rest.CopyConfig(e.mgmt.Config)
	cfg.QPS, cfg.Burst = ManagementQPS, ManagementBurst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		// Each test (and each restart) registers the controller again in this process.
		Controller: config.Controller{SkipNameValidation: &skipNameValidation}})
	if err != nil {
		e.t.Fatal(err)
	}
	r := &Reconciler{Providers: HostProviders(e.host), Credentials: e.creds,
		AccessRetryWindow: e.window, PollInterval: 200 * time.Millisecond, CleanupTimeout: 3 * time.Second,
		RefreshBefore: e.refreshBefore}
	if err := r.SetupWithManager(mgr, 4); err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.stop, e.done = cancel, make(chan error, 1)
	go func() { e.done <- mgr.Start(ctx) }()
}

// halt stops the running manager and waits for it.
func (e *env) halt() {
	if e.stop == nil {
		return
	}
	e.stop()
	<-e.done
	e.stop = nil
}

func (e *env) credential(id string) {
	sealed, keyID, err := e.creds.Keyring.Seal([]byte(`{"accessKeyId":"AKIAIOSFODNN7EXAMPLE","secretAccessKey":"x"}`), []byte(id))
	if err != nil {
		e.t.Fatal(err)
	}
	err = e.creds.Store.CreateCredential(context.Background(), &store.Credential{ID: id, Label: id, Kind: "access_key",
		Ciphertext: sealed, KeyID: keyID, Last4: "MPLE", CreatedBy: "test"})
	if err != nil {
		e.t.Fatal(err)
	}
}

// connect stores a kubeconfig and creates a connect_existing HostCluster.
func (e *env) connect(id string, kubeconfig []byte) {
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: v1.KubeconfigSecretName(id), Namespace: v1.Namespace,
		Labels: map[string]string{v1.ClusterIDLabel: id}}, Data: map[string][]byte{v1.KubeconfigSecretKey: kubeconfig}}
	if err := e.c.Create(ctx, s); err != nil {
		e.t.Fatal(err)
	}
	hc := &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace},
		Spec: v1.HostClusterSpec{Mode: v1.ModeConnectExisting, Provider: "other",
			ConnectKubeconfigSecretRef: &v1.SecretKeyRef{Name: s.Name, Key: v1.KubeconfigSecretKey}}}
	if err := e.c.Create(ctx, hc); err != nil {
		e.t.Fatal(err)
	}
}

// waitPhase waits until the HostCluster reaches phase and returns it.
func (e *env) waitPhase(id string, phase v1.Phase, within time.Duration) *v1.HostCluster {
	e.t.Helper()
	deadline := time.Now().Add(within)
	hc := &v1.HostCluster{}
	for {
		err := e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc)
		if err == nil && hc.Status.Phase == phase {
			return hc
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("HostCluster %s: phase %q, message %q; want %s within %s (err %v)", id, hc.Status.Phase, hc.Status.Message, phase, within, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
