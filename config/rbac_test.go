package config

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/controller"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/sdk/terraform"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/inspect"
)

// account is a ServiceAccount of config/default, reached by impersonation,
// with every request the API server refused recorded.
type account struct {
	cfg     *rest.Config
	cs      kubernetes.Interface
	mu      sync.Mutex
	refused []string
	secrets []string // every Secrets request it made, "GET /api/v1/..."
}

func impersonate(t *testing.T, admin *rest.Config, name string) *account {
	t.Helper()
	a := &account{cfg: rest.CopyConfig(admin)}
	a.cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:kubeopera-system:" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kubeopera-system", "system:authenticated"}}
	a.cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return recorder{rt, a} }
	a.cs = kubernetes.NewForConfigOrDie(a.cfg)
	return a
}

type recorder struct {
	next http.RoundTripper
	a    *account
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	r.a.mu.Lock()
	defer r.a.mu.Unlock()
	if err == nil && resp.StatusCode == http.StatusForbidden {
		r.a.refused = append(r.a.refused, req.Method+" "+req.URL.Path)
	}
	if strings.HasSuffix(req.URL.Path, "/secrets") || strings.Contains(req.URL.Path, "/secrets/") {
		r.a.secrets = append(r.a.secrets, req.Method+" "+req.URL.Path)
	}
	return resp, err
}

// secretsOnlyIn fails for every Secrets request the account made outside
// namespaces (a cluster-wide list or watch included).
func (a *account) secretsOnlyIn(t *testing.T, who string, namespaces ...string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.secrets) == 0 {
		t.Errorf("%s made no Secrets request: the test no longer exercises them", who)
	}
	for _, r := range a.secrets {
		if !slices.ContainsFunc(namespaces, func(ns string) bool { return strings.Contains(r, "/namespaces/"+ns+"/secrets") }) {
			t.Errorf("%s: %s, want Secrets requests in %v only", who, r, namespaces)
		}
	}
}

func (a *account) noneRefused(t *testing.T, who string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.refused) > 0 {
		t.Errorf("%s was refused %d calls its work needs: %v", who, len(a.refused), a.refused)
	}
	a.refused = nil
}

func mustForbid(t *testing.T, what string, err error) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Errorf("%s: %v, want Forbidden", what, err)
	}
}

// The server's, the controller's and the Terraform Job runner's real calls
// run as the ServiceAccounts config/default makes, on an API server that
// enforces RBAC: none is refused, and calls beyond their work are.
func TestServiceAccountsHoldExactlyWhatTheirWorkNeeds(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	apply(t, sb.Config, build(t))
	server := impersonate(t, sb.Config, "kubeopera-server")
	ctl := impersonate(t, sb.Config, "kubeopera-controller")

	reg := serverHandsOverACluster(ctx, t, server, sb.Config, sb.Kubeconfig)
	server.noneRefused(t, "kubeopera-server")
	controllerReconciles(ctx, t, ctl, server, reg)
	jobRunnerRuns(ctx, t, ctl)
	ctl.noneRefused(t, "kubeopera-controller")
	ctl.secretsOnlyIn(t, "kubeopera-controller", "kubeopera-system", "kubeopera-provisioning")
	server.noneRefused(t, "kubeopera-server")

	_, err = server.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{})
	mustForbid(t, "server creates a namespace", err)
	_, err = server.cs.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
	mustForbid(t, "server lists Secrets in kube-system", err)
	_, err = server.cs.BatchV1().Jobs("kubeopera-provisioning").List(ctx, metav1.ListOptions{})
	mustForbid(t, "server lists provisioning Jobs", err)
	_, err = ctl.cs.BatchV1().Jobs("default").Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	mustForbid(t, "controller creates a Job outside kubeopera-provisioning", err)
	_, err = ctl.cs.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	mustForbid(t, "controller lists ClusterRoles", err)
	_, err = ctl.cs.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
	mustForbid(t, "controller lists Secrets in default", err)
	_, err = ctl.cs.CoreV1().Secrets("kube-system").Get(ctx, "any", metav1.GetOptions{})
	mustForbid(t, "controller reads a Secret in kube-system", err)
	_, err = ctl.cs.CoreV1().Secrets(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	mustForbid(t, "controller lists every namespace's Secrets", err)
}

// serverHandsOverACluster does what the server does at start (its
// namespace, the HostCluster cache), at register-self and on the overview
// (its own cluster's identity, nodes and health), and on a connect (the
// kubeconfig Secret and the HostCluster), then syncs on read and shows the
// cluster's page.
func serverHandsOverACluster(ctx context.Context, t *testing.T, a *account, admin *rest.Config, kubeconfig []byte) *hostclusters.Kube {
	t.Helper()
	reg, err := hostclusters.NewKube(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.EnsureNamespace(ctx); err != nil {
		t.Errorf("EnsureNamespace: %v", err)
	}
	if err := reg.StartCache(ctx); err != nil {
		t.Fatalf("StartCache: %v", err)
	}
	if _, err := (inspect.Inspector{Client: a.cs}).Inspect(ctx); err != nil {
		t.Errorf("register-self Inspect: %v", err)
	}
	if _, err := health.Collect(ctx, a.cs); err != nil {
		t.Errorf("health of its own cluster: %v", err)
	}
	spec := hostclusters.Spec{ID: "c1", Mode: hostclusters.ConnectExisting, Provider: "aws", Region: "eu-north-1", Kubeconfig: kubeconfig}
	if err := reg.Create(ctx, spec); err != nil {
		t.Fatalf("Create: %v", err)
	}
	if _, err := reg.Kubeconfigs(ctx); err != nil {
		t.Errorf("Kubeconfigs: %v", err)
	}
	if _, err := reg.List(ctx); err != nil {
		t.Errorf("List: %v", err)
	}
	if _, found, err := reg.Detail(ctx, "c1"); err != nil || !found {
		t.Errorf("Detail (the cluster page's conditions and events): found %v, %v", found, err)
	}
	// A cluster's requests (scale or upgrade, retry, teardown) are patches
	// of its HostCluster, each accepted only in a phase that allows it:
	// c2 has failed (a retry, then a teardown), c3 is Ready (a scale). Both
	// are gone before the controller starts.
	for id, cond := range map[string]string{"c2": "Stalled", "c3": "Ready"} {
		if err := reg.Create(ctx, hostclusters.Spec{ID: id, Mode: hostclusters.ConnectExisting, Provider: "aws", Region: "eu-north-1", Kubeconfig: kubeconfig}); err != nil {
			t.Fatalf("Create %s: %v", id, err)
		}
		setCondition(ctx, t, admin, id, cond)
	}
	if _, err := reg.Retry(ctx, "c2"); err != nil {
		t.Errorf("Retry: %v", err)
	}
	if _, err := reg.Teardown(ctx, "c2"); err != nil {
		t.Errorf("Teardown: %v", err)
	}
	two := 2
	if _, err := reg.Update(ctx, "c3", &two, ""); err != nil {
		t.Errorf("Update (a scale): %v", err)
	}
	for _, id := range []string{"c2", "c3"} {
		if err := reg.Delete(ctx, id); err != nil {
			t.Errorf("Delete %s: %v", id, err)
		}
	}
	return reg
}

// readyPipeline stands in for the shared pipeline, which works on the
// target cluster with the target's own credentials; on the management
// cluster it reads the Secrets a HostCluster names through the manager's
// cached client, as this one does.
type readyPipeline struct{ management client.Client }

func (p readyPipeline) Run(ctx context.Context, hc *v1.HostCluster, _ []byte) (string, error) {
	// A cached read blocks while its informer cannot list: bound it.
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var s corev1.Secret
	if err := p.management.Get(ctx, client.ObjectKey{Namespace: hc.Namespace, Name: hc.Spec.ConnectKubeconfigSecretRef.Name}, &s); err != nil {
		return "", fmt.Errorf("read the HostCluster's kubeconfig Secret through the cache: %w", err)
	}
	return "ready", nil
}

// controllerReconciles runs the real controller manager (leader election
// included) as the controller's ServiceAccount until the server's cluster
// is Ready, then through its deletion (the finalizer's cleanup).
func controllerReconciles(ctx context.Context, t *testing.T, ctl, server *account, reg *hostclusters.Kube) {
	t.Helper()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = v1.AddToScheme(scheme)
	skip := true
	mgr, err := ctrl.NewManager(ctl.cfg, ctrl.Options{Scheme: scheme, Cache: controller.Cache(), LeaderElection: true,
		LeaderElectionID: "host-cluster-controller.kubeopera.io", LeaderElectionNamespace: "kubeopera-system",
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: &skip}})
	if err != nil {
		t.Fatal(err)
	}
	r := &controller.Reconciler{Pipeline: readyPipeline{mgr.GetClient()}, PollInterval: 250 * time.Millisecond}
	if err := r.SetupWithManager(mgr, 2); err != nil {
		t.Fatal(err)
	}
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() { stop(); <-done }()
	phase := func() (v1.Phase, error) {
		var hc v1.HostCluster
		err := mgr.GetAPIReader().Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: "c1"}, &hc)
		return hc.Status.Phase, err
	}
	waitFor(ctx, t, "HostCluster c1 Ready", func() (bool, error) { p, err := phase(); return p == v1.PhaseReady, err })
	// The cache holds kubeopera-system only: a Secret elsewhere is not
	// looked up at all (a cluster-wide cache would answer NotFound).
	err = mgr.GetClient().Get(ctx, client.ObjectKey{Namespace: "default", Name: "any"}, &corev1.Secret{})
	if err == nil || apierrors.IsNotFound(err) {
		t.Errorf("the controller's cache read a Secret in default: %v, want an error naming a namespace outside the cache", err)
	}
	if err := reg.Delete(ctx, "c1"); err != nil {
		t.Fatalf("server deletes the cluster: %v", err)
	}
	waitFor(ctx, t, "HostCluster c1 gone", func() (bool, error) {
		_, err := phase()
		return apierrors.IsNotFound(err), nil
	})
}

// jobRunnerRuns drives sdk/terraform's Job executor as the provider
// plugins do in the controller's pod: its RBAC, a run, its status, the
// state's outputs, and a destroy that replaces the apply.
func jobRunnerRuns(ctx context.Context, t *testing.T, ctl *account) {
	t.Helper()
	kube, err := terraform.NewKube(ctl.cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobs := terraform.Jobs{Client: kube}
	if err := jobs.Ensure(ctx); err != nil {
		t.Fatalf("Jobs.Ensure: %v", err)
	}
	mod := terraform.Module{Files: map[string][]byte{"main.tf": []byte("output \"x\" { value = 1 }\n")}}
	if err := jobs.Start(ctx, terraform.Run{ID: "c9", Action: terraform.Apply, Module: mod,
		Env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE"}}); err != nil {
		t.Fatalf("Jobs.Start apply: %v", err)
	}
	if _, err := jobs.Status(ctx, "c9", terraform.Apply); err != nil {
		t.Errorf("Jobs.Status: %v", err)
	}
	if _, err := jobs.Outputs(ctx, "c9"); err == nil {
		t.Error("Outputs of an apply that has not run: no error")
	}
	if err := jobs.Start(ctx, terraform.Run{ID: "c9", Action: terraform.Destroy, Module: mod}); err != nil {
		t.Fatalf("Jobs.Start destroy: %v", err)
	}
	if _, err := jobs.Status(ctx, "c9", terraform.Destroy); err != nil {
		t.Errorf("Jobs.Status destroy: %v", err)
	}
}

func waitFor(ctx context.Context, t *testing.T, what string, cond func() (bool, error)) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		ok, err := cond()
		last = err
		return ok, nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v (last error: %v)", what, err, last)
	}
}

// setCondition writes, as the controller would (with the test's own
// rights), condition typ True for HostCluster id's current generation.
func setCondition(ctx context.Context, t *testing.T, admin *rest.Config, id, typ string) {
	t.Helper()
	res := dynamic.NewForConfigOrDie(admin).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	o, err := res.Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedSlice(o.Object, []any{map[string]any{"type": typ, "status": "True", "reason": "Test", "message": "test",
		"lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": o.GetGeneration()}}, "status", "conditions")
	_ = unstructured.SetNestedField(o.Object, o.GetGeneration(), "status", "observedGeneration")
	if _, err := res.UpdateStatus(ctx, o, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
