package pipeline

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// apiServer stands in for a target's API server: it records the requests
// and answers them with status.
type apiServer struct {
	mu     sync.Mutex
	paths  []string
	setups []string
	status int
}

func (a *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths = append(a.paths, r.URL.Path)
	a.setups = append(a.setups, r.Header.Get(v1.SetupSecretHeader))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(`{"id":"u1","detail":"starting"}`))
}

func adminCluster(id string) *v1.HostCluster {
	return &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace, Generation: 1},
		Spec: v1.HostClusterSpec{AdminEmail: "ops@example.com", AdminUsername: "opsadmin"}}
}

// Without an AdminURL the first-admin call goes through the target's API
// server, to the installed server's Service, with the cluster's setup
// secret; a server that keeps answering 503 ends Failed after AdminTimeout.
func TestFirstAdminGoesThroughTheServiceProxyAndGivesUp(t *testing.T) {
	ctx := context.Background()
	mgmt := fake.NewClientBuilder().WithScheme(mgmtScheme).Build()
	p := New(Options{Management: mgmt, AdminTimeout: time.Hour})
	api := &apiServer{status: http.StatusCreated}
	srv := httptest.NewServer(api)
	defer srv.Close()
	tgt := &target{config: &rest.Config{Host: srv.URL}}

	hc := adminCluster("c1")
	out, err := p.createAdmin(ctx, hc, tgt)
	if err != nil || !out.done || !meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAdminCreated) {
		t.Fatalf("createAdmin: %+v, %v; conditions %+v", out, err, hc.Status.Conditions)
	}
	var setup corev1.Secret
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.SetupSecretName("c1")}, &setup); err != nil {
		t.Fatal(err)
	}
	want := "/api/v1/namespaces/kubeopera-system/services/kubeopera-server:http/proxy/api/v1/setup/admin"
	if len(api.paths) != 1 || api.paths[0] != want || api.setups[0] != string(setup.Data[v1.SetupSecretKey]) || api.setups[0] == "" {
		t.Errorf("calls %v with setup secret %v; want one to %s with the host's setup secret", api.paths, api.setups, want)
	}

	api.status = http.StatusServiceUnavailable
	p = New(Options{Management: mgmt, AdminTimeout: time.Nanosecond})
	hc = adminCluster("c2")
	out, err = p.createAdmin(ctx, hc, tgt)
	if err != nil || out.phase != v1.PhaseFailed || !strings.Contains(out.msg, "did not accept the first-admin call") ||
		!strings.Contains(out.msg, "HTTP 503") {
		t.Errorf("a server that never answers: %+v, %v; want Failed with the last answer", out, err)
	}
	p = New(Options{Management: mgmt, AdminTimeout: time.Hour})
	hc = adminCluster("c3")
	out, _ = p.createAdmin(ctx, hc, tgt)
	if out.phase != v1.PhaseInstallingKubeOpera || !strings.Contains(out.msg, "retrying every few seconds until") {
		t.Errorf("while waiting: %+v", out)
	}
}

// At Ready the message names the DNS records to create, read from the
// ingress controller's Service, or says it has no address yet.
func TestDNSAdviceReadsTheIngressAddress(t *testing.T) {
	ctx := context.Background()
	p := New(Options{})
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ingressService, Namespace: ingressNamespace}}
	tc := fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(svc).Build()
	hc := adminCluster("c1")
	hc.Spec.Domain = "ops.example.com"
	msg := p.dnsAdvice(ctx, hc, &target{client: tc})
	if !strings.Contains(msg, "ops.example.com and api.ops.example.com") || !strings.Contains(msg, "has none yet") {
		t.Errorf("no address yet: %q", msg)
	}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{Hostname: "abc.elb.eu-north-1.amazonaws.com"}}
	tc = fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(svc).Build()
	msg = p.dnsAdvice(ctx, hc, &target{client: tc})
	if !strings.Contains(msg, "CNAME records for ops.example.com and api.ops.example.com pointing at abc.elb.eu-north-1.amazonaws.com") {
		t.Errorf("with a load balancer: %q", msg)
	}
}

// A deleted cluster's connection and remembered Flux installs are dropped,
// and only its own.
func TestForgetDropsOnlyThatCluster(t *testing.T) {
	p := New(Options{})
	for _, id := range []string{"c1", "c10"} {
		p.targets.Store(v1.Namespace+"/"+id, cachedTarget{})
		p.installed.Store(v1.Namespace+"/"+id+"/uid/1", "installed")
	}
	p.Forget(adminCluster("c1"))
	if _, ok := p.targets.Load(v1.Namespace + "/c1"); ok {
		t.Error("c1's connection is still kept")
	}
	if _, ok := p.installed.Load(v1.Namespace + "/c1/uid/1"); ok {
		t.Error("c1's Flux install is still remembered")
	}
	if _, ok := p.targets.Load(v1.Namespace + "/c10"); !ok {
		t.Error("c10's connection was dropped with c1's")
	}
	if _, ok := p.installed.Load(v1.Namespace + "/c10/uid/1"); !ok {
		t.Error("c10's Flux install was forgotten with c1's")
	}
}
