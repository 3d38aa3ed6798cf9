package pipeline

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// apiServer stands in for a target's API server: it records the requests
// and answers them with status.
type apiServer struct {
	mu     sync.Mutex
	paths  []string
	setups []string
	status int
	// contentType and body answer every request (a JSON body with detail
	// "starting" when empty).
	contentType, body string
}

func (a *apiServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths = append(a.paths, r.URL.Path)
	a.setups = append(a.setups, r.Header.Get(v1.SetupSecretHeader))
	w.Header().Set("Content-Type", cmp.Or(a.contentType, "application/json"))
	w.WriteHeader(a.status)
	_, _ = w.Write([]byte(cmp.Or(a.body, `{"id":"u1","detail":"starting"}`)))
}

func adminCluster(id string) *v1.HostCluster {
	return &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: v1.Namespace, Generation: 1},
		Spec: v1.HostClusterSpec{AdminEmail: "ops@example.com", AdminUsername: "opsadmin"}}
}

// Without an AdminURL the first-admin call goes through the target's API
// server, to the installed server's Service, with the cluster's setup
// secret.
func TestFirstAdminGoesThroughTheServiceProxy(t *testing.T) {
	ctx := context.Background()
	mgmt := fake.NewClientBuilder().WithScheme(mgmtScheme).Build()
	p := New(Options{Management: mgmt, AdminTimeout: time.Hour})
	api := &apiServer{status: http.StatusCreated}
	srv := httptest.NewServer(api)
	defer srv.Close()
	// The server's endpoint is on a node kwok does not simulate.
	ready := true
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-5", Labels: map[string]string{"type": "m6i.large"}}}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "kubeopera-server-x1", Namespace: gitops.NamespaceSystem,
		Labels: map[string]string{discoveryv1.LabelServiceName: gitops.ServerName}}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.21"}, NodeName: &node.Name,
			Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	tc := fake.NewClientBuilder().WithScheme(mgmtScheme).WithObjects(node, slice).Build()
	tgt := &target{config: &rest.Config{Host: srv.URL}, client: tc}

	hc := adminCluster("c1")
	if err := p.createAdmin(ctx, hc, tgt); err != nil || !meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionAdminCreated) {
		t.Fatalf("createAdmin: %v; conditions %+v", err, hc.Status.Conditions)
	}
	var setup corev1.Secret
	if err := mgmt.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.SetupSecretName("c1")}, &setup); err != nil {
		t.Fatal(err)
	}
	want := "/api/v1/namespaces/kubeopera-system/services/kubeopera-server:http/proxy/api/v1/setup/admin"
	if len(api.paths) != 1 || api.paths[0] != want || api.setups[0] != string(setup.Data[v1.SetupSecretKey]) || api.setups[0] == "" {
		t.Errorf("calls %v with setup secret %v; want one to %s with the host's setup secret", api.paths, api.setups, want)
	}
}

// The first-admin step, one call each against a stand-in server: done,
// waiting (retried, with until when) or stalled (what to fix).
func TestCreateAdminStep(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		noAdmin bool
		state   string        // the password Secret's admin state before the call
		waited  time.Duration // since the first retry (AdminTimeout is a minute)
		want    string        // stepKind of the result
		cond    metav1.ConditionStatus
		reason  string
		says    []string
		calls   int
		// contentType and body of the server's answer (JSON with detail
		// "starting" when empty)
		contentType, body string
	}{
		{name: "not asked for is skipped without a call", noAdmin: true, want: "done", cond: metav1.ConditionFalse,
			reason: v1.ReasonSkipped, says: []string{"set adminEmail and adminUsername"}},
		{name: "created", status: http.StatusCreated, want: "done", cond: metav1.ConditionTrue, reason: v1.ReasonCreated,
			says: []string{"super-admin opsadmin created"}, calls: 1},
		{name: "created before is not called again", state: adminCreated, want: "done", cond: metav1.ConditionTrue, reason: v1.ReasonCreated},
		{name: "someone else's admin", status: http.StatusConflict, want: "done", cond: metav1.ConditionFalse,
			reason: v1.ReasonAlreadyExists, says: []string{"already has an administrator"}, calls: 1},
		{name: "not served yet is retried until the timeout", status: http.StatusServiceUnavailable, want: "retrying",
			cond: metav1.ConditionFalse, reason: v1.ReasonWaiting, says: []string{"HTTP 503", "retried until"}, calls: 1},
		{name: "not served past the timeout stalls", status: http.StatusServiceUnavailable, waited: time.Hour,
			want: "stalled:" + v1.ReasonAdminUnanswered, cond: metav1.ConditionFalse, reason: v1.ReasonWaiting,
			says: []string{"did not accept the first-admin call for 1m0s", "HTTP 503", "Check its server"}, calls: 1},
		{name: "refused stalls", status: http.StatusBadRequest, want: "stalled:" + v1.ReasonAdminRefused,
			says: []string{"was refused: HTTP 400: starting"}, calls: 1},
		{name: "a proxy's 403 is retried with its body in the message", status: http.StatusForbidden,
			contentType: "text/plain", body: "resolve_deny: denied destination\n", want: "retrying", cond: metav1.ConditionFalse,
			reason: v1.ReasonWaiting, says: []string{"HTTP 403: resolve_deny: denied destination; the first-admin call is retried until"}, calls: 1},
		{name: "the API server's 503 without endpoints is retried with its message", status: http.StatusServiceUnavailable,
			body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no endpoints available for service \"kubeopera-server\"","reason":"ServiceUnavailable","code":503}`,
			want: "retrying", cond: metav1.ConditionFalse, reason: v1.ReasonWaiting,
			says: []string{`HTTP 503: no endpoints available for service "kubeopera-server"`}, calls: 1},
		{name: "an empty answer says so", status: http.StatusBadGateway, contentType: "text/plain", body: " ", want: "retrying",
			says: []string{"HTTP 502 with an empty body"}, calls: 1},
		{name: "the installed KubeOpera's own 403 stalls", status: http.StatusForbidden, contentType: "application/problem+json",
			body: `{"title":"Forbidden","status":403,"detail":"the setup secret does not match"}`, want: "stalled:" + v1.ReasonAdminRefused,
			says: []string{"was refused: HTTP 403: the setup secret does not match"}, calls: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			mgmt := fake.NewClientBuilder().WithScheme(mgmtScheme).Build()
			api := &apiServer{status: c.status, contentType: c.contentType, body: c.body}
			srv := httptest.NewServer(api)
			defer srv.Close()
			p := New(Options{Management: mgmt, AdminTimeout: time.Minute, AdminURL: func(*v1.HostCluster) string { return srv.URL }})
			hc := adminCluster("c1")
			if c.waited > 0 {
				hc.SetCondition(v1.ConditionAdminCreated, metav1.ConditionFalse, v1.ReasonWaiting, "HTTP 503 before")
				aged(hc, v1.ConditionAdminCreated, c.waited)
			}
			if c.noAdmin {
				hc.Spec.AdminEmail, hc.Spec.AdminUsername = "", ""
			}
			if c.state != "" {
				s, err := p.adminSecret(ctx, hc, v1.AdminPasswordSecretName(hc.Name))
				if err != nil {
					t.Fatal(err)
				}
				if err := p.markAdmin(ctx, s, c.state); err != nil {
					t.Fatal(err)
				}
			}
			err := p.createAdmin(ctx, hc, &target{})
			if got := stepKind(err); got != c.want {
				t.Errorf("result %s (%v), want %s", got, err, c.want)
			}
			var w *step.Waiting
			if errors.As(err, &w) && (w.After < time.Second || w.After > 30*time.Second) {
				t.Errorf("retried after %s, want 1-30s", w.After)
			}
			if len(api.paths) != c.calls {
				t.Errorf("%d calls to the server, want %d", len(api.paths), c.calls)
			}
			text := hc.Status.Conditions
			if err != nil {
				text = append(text, metav1.Condition{Message: err.Error()})
			}
			for _, s := range c.says {
				if !anyMessage(text, s) {
					t.Errorf("nothing says %q: %v, %+v", s, err, hc.Status.Conditions)
				}
			}
			if cnd := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAdminCreated); c.reason != "" &&
				(cnd == nil || cnd.Status != c.cond || cnd.Reason != c.reason) {
				t.Errorf("AdminCreated %+v, want %s/%s", cnd, c.cond, c.reason)
			}
		})
	}
}

// A retried first-admin call waits as long as it has waited so far,
// between 1 and 30 seconds: the delays double without a count.
func TestAdminBackoffDoublesFromOneToThirtySeconds(t *testing.T) {
	for _, c := range []struct{ waited, want time.Duration }{
		{0, time.Second}, {500 * time.Millisecond, time.Second}, {time.Second, time.Second},
		{2 * time.Second, 2 * time.Second}, {16 * time.Second, 16 * time.Second}, {31 * time.Second, 30 * time.Second},
		{time.Hour, 30 * time.Second},
	} {
		if got := adminBackoff(c.waited); got != c.want {
			t.Errorf("after waiting %s: next in %s, want %s", c.waited, got, c.want)
		}
	}
}

// A KubeOpera that accepts the connection but never answers ends the
// first-admin step stalled with a clear message after the admin timeout,
// instead of holding the reconcile (and retrying) forever.
func TestFirstAdminToAServerThatNeverAnswersStallsInBoundedTime(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	mgmt := fake.NewClientBuilder().WithScheme(mgmtScheme).Build()
	p := New(Options{Management: mgmt, AdminTimeout: 300 * time.Millisecond, AdminURL: func(*v1.HostCluster) string { return srv.URL }})
	hc := adminCluster("c1")
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		for {
			err := p.createAdmin(context.Background(), hc, &target{})
			if stepKind(err) != "retrying" {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if stepKind(err) != "stalled:"+v1.ReasonAdminUnanswered || !strings.Contains(err.Error(), "did not accept the first-admin call for 300ms") ||
			!strings.Contains(err.Error(), "deadline exceeded") {
			t.Errorf("after %s: %s: %v", time.Since(start), stepKind(err), err)
		}
		t.Logf("stalled after %s: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(20 * time.Second):
		t.Fatal("the first-admin step still waits on a server that never answers after 20s (admin timeout 300ms)")
	}
}

// At Ready the message names the DNS records to create, read from the
// tree's Gateway's status addresses, or says it has none yet or does not
// exist yet (Flux applies it after apps: no error); a cluster
// that asked for ingress-nginx reads the controller's Service instead.
func TestDNSAdviceReadsTheGatewayAddress(t *testing.T) {
	ctx := context.Background()
	p := New(Options{})
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: gitops.GatewayName, Namespace: gitops.NamespaceSystem}}
	hc := adminCluster("c1")
	hc.Spec.Domain = "ops.example.com"
	msg := p.dnsAdvice(ctx, hc, &target{client: fake.NewClientBuilder().WithScheme(p.scheme).Build()})
	if !strings.Contains(msg, "Gateway kubeopera-system/kubeopera once Flux has created it (it does not exist yet)") || strings.Contains(msg, "not found") {
		t.Errorf("no Gateway: %q", msg)
	}
	tc := fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(gw.DeepCopy()).Build()
	msg = p.dnsAdvice(ctx, hc, &target{client: tc})
	if !strings.Contains(msg, "ops.example.com and api.ops.example.com") || !strings.Contains(msg, "has none yet") {
		t.Errorf("no address yet: %q", msg)
	}
	host := gatewayv1.HostnameAddressType
	gw.Status.Addresses = []gatewayv1.GatewayStatusAddress{{Type: &host, Value: "abc.elb.eu-north-1.amazonaws.com"}}
	tc = fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(gw).Build()
	msg = p.dnsAdvice(ctx, hc, &target{client: tc})
	if !strings.Contains(msg, "CNAME records for ops.example.com and api.ops.example.com pointing at abc.elb.eu-north-1.amazonaws.com (Gateway kubeopera-system/kubeopera)") {
		t.Errorf("with a load balancer: %q", msg)
	}

	hc.Spec.IngressNginx = true
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: ingressService, Namespace: ingressNamespace}}
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "203.0.113.7"}}
	tc = fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(svc, gw).Build()
	msg = p.dnsAdvice(ctx, hc, &target{client: tc})
	if !strings.Contains(msg, "A records for ops.example.com and api.ops.example.com pointing at 203.0.113.7 (the ingress-nginx") {
		t.Errorf("with ingress-nginx: %q", msg)
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
