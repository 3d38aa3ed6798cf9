package gitops

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// everything builds all three layers of p's tree.
func everything(t *testing.T, p Params) []*unstructured.Unstructured {
	t.Helper()
	return append(buildAll(t, p), build(t, p, generate(t, p), TLSDir)...)
}

// By default KubeOpera is published by a Gateway of the tree's
// GatewayClass with one HTTPS listener per host, each with its own
// certificate Secret, and an HTTPRoute per host to the server's Service:
// no Ingress anywhere, and no ingress-nginx.
func TestGatewayServesTheDomainOverTLS(t *testing.T) {
	p := prodParams()
	objs := everything(t, p)
	if ing := ofKind(objs, gvkIngress); len(ing) > 0 {
		t.Errorf("%d Ingresses in the default tree, want none", len(ing))
	}
	for _, o := range objs {
		if o.GetName() == releaseIngressNginx { // the HelmRelease, its HelmRepository or namespace
			t.Errorf("%s %s in a tree that did not ask for ingress-nginx", o.GetKind(), o.GetName())
		}
	}
	var gw gatewayv1.Gateway
	fromUnstructured(t, find(t, objs, "Gateway", GatewayName), &gw)
	var class gatewayv1.GatewayClass
	fromUnstructured(t, find(t, objs, "GatewayClass", string(gw.Spec.GatewayClassName)), &class)
	if class.Spec.ControllerName != EnvoyGatewayControllerName {
		t.Errorf("GatewayClass controller %q, want Envoy Gateway's %q", class.Spec.ControllerName, EnvoyGatewayControllerName)
	}
	https := map[string]gatewayv1.Listener{} // host -> listener
	for _, l := range gw.Spec.Listeners {
		if l.Protocol == gatewayv1.HTTPSProtocolType && l.Hostname != nil {
			https[string(*l.Hostname)] = l
		}
	}
	var svc corev1.Service
	fromUnstructured(t, find(t, objs, "Service", ServerName), &svc)
	routes := ofKind(objs, gvkHTTPRoute)
	hosts := map[string]bool{}
	for _, o := range routes {
		var r gatewayv1.HTTPRoute
		fromUnstructured(t, o, &r)
		if len(r.Spec.Hostnames) != 1 || len(r.Spec.ParentRefs) != 1 || len(r.Spec.Rules) != 1 {
			t.Fatalf("HTTPRoute %s: %+v, want one host, one parent, one rule", r.Name, r.Spec)
		}
		host := string(r.Spec.Hostnames[0])
		hosts[host] = true
		l, ok := https[host]
		ref := r.Spec.ParentRefs[0]
		if !ok || ref.Name != gatewayv1.ObjectName(gw.Name) || ref.SectionName == nil || *ref.SectionName != l.Name {
			t.Errorf("HTTPRoute %s for %s attaches to %+v; the Gateway's HTTPS listener for it is %+v", r.Name, host, ref, l)
		}
		if l.TLS == nil || len(l.TLS.CertificateRefs) != 1 || l.TLS.CertificateRefs[0].Name == "" {
			t.Errorf("listener %s: TLS %+v, want one certificate Secret for cert-manager to fill", l.Name, l.TLS)
		}
		b := r.Spec.Rules[0].BackendRefs
		if len(b) != 1 || b[0].Name != ServerName || b[0].Port == nil || int32(*b[0].Port) != svc.Spec.Ports[0].Port {
			t.Errorf("HTTPRoute %s backends %+v, want the server's Service port %d", r.Name, b, svc.Spec.Ports[0].Port)
		}
	}
	if lb := gw.Spec.Infrastructure; lb == nil || lb.Annotations[awsLoadBalancerType] != "nlb" {
		t.Errorf("AWS Gateway infrastructure %+v, want an NLB for its Service", lb)
	}
	var other gatewayv1.Gateway
	fromUnstructured(t, find(t, everything(t, minimalParams()), "Gateway", GatewayName), &other)
	if other.Spec.Infrastructure != nil {
		t.Errorf("Gateway of an unknown provider has infrastructure %+v, want none", other.Spec.Infrastructure)
	}
	want := []string{p.APIHost(), p.DashboardHost()}
	if got := slices.Sorted(maps.Keys(hosts)); !slices.Equal(got, want) || len(https) != len(want) {
		t.Errorf("HTTPRoute hosts %v, HTTPS listeners %d; want %v", got, len(https), want)
	}
}

// ingress-nginx, its Ingresses and the HTTP-01 solver through it come only
// with IngressNginx, and then nothing of Gateway API does.
func TestIngressNginxOnlyWhenAsked(t *testing.T) {
	objs := everything(t, nginxParams())
	find(t, objs, "HelmRelease", releaseIngressNginx)
	if n := len(ofKind(objs, gvkIngress)); n != 2 {
		t.Errorf("%d Ingresses, want the server's and the dashboard's", n)
	}
	for _, o := range objs {
		if o.GroupVersionKind().Group == gatewayv1.GroupName || o.GetName() == releaseEnvoyGateway ||
			o.GetName() == GatewayAPISource {
			t.Errorf("%s %s in a tree that asked for ingress-nginx", o.GetKind(), o.GetName())
		}
	}
	certManager := find(t, objs, "HelmRelease", releaseCertManager)
	if _, set, _ := unstructured.NestedMap(certManager.Object, "spec", "values", "config"); set {
		t.Error("cert-manager's Gateway API support is on without Gateway API CRDs")
	}
}

// exactVersion is one release: no range, wildcard or constraint.
var exactVersion = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+$`)

// Every chart the tree installs, in every variant, is a release of the one
// table, from the repository the table says; every entry is an exact
// release checked on a date, and is used.
func TestEveryChartComesFromTheTable(t *testing.T) {
	type ref struct{ repo, url, name, version string }
	table := map[ref]bool{}
	for _, c := range pinnedCharts {
		if !exactVersion.MatchString(c.version) {
			t.Errorf("chart %s version %q is not one exact release", c.name, c.version)
		}
		if _, err := time.Parse(time.DateOnly, c.checked); err != nil {
			t.Errorf("chart %s: checked %q is no date: %v", c.name, c.checked, err)
		}
		table[ref{c.repo, c.url, c.name, c.version}] = false
	}
	if len(table) != len(pinnedCharts) {
		t.Errorf("the table lists a chart twice")
	}
	for name, p := range variants() {
		objs := buildAll(t, p)
		releases := ofKind(objs, gvkHelmRelease)
		if len(releases) < 4 {
			t.Fatalf("%s: %d HelmReleases; the test is not looking where it should", name, len(releases))
		}
		for _, hr := range releases {
			repoName := str(t, hr, "spec", "chart", "spec", "sourceRef", "name")
			r := ref{repoName, str(t, find(t, objs, "HelmRepository", repoName), "spec", "url"),
				str(t, hr, "spec", "chart", "spec", "chart"), str(t, hr, "spec", "chart", "spec", "version")}
			if _, ok := table[r]; !ok {
				t.Errorf("%s: HelmRelease %s installs %+v, which is not in the chart table", name, hr.GetName(), r)
			}
			table[r] = true
		}
	}
	for r, used := range table {
		if !used {
			t.Errorf("chart %+v is in the table but no tree installs it", r)
		}
	}
}

// The Gateway API CRDs come from upstream's repository at the pinned tag,
// or from a mirror's copy of that tag when Params name one (`kubeopera
// dev`'s loopback mirror); anything but an http(s) URL is refused.
func TestGatewayAPICRDsComeFromUpstreamOrTheNamedMirror(t *testing.T) {
	for _, tc := range []struct{ mirror, want string }{
		{"", DefaultGatewayAPIRepoURL},
		{"http://127.0.0.1:41234/gateway-api.git", "http://127.0.0.1:41234/gateway-api.git"},
	} {
		p := prodParams()
		p.GatewayAPIRepoURL = tc.mirror
		repo := find(t, buildAll(t, p), "GitRepository", GatewayAPISource)
		url, _, _ := unstructured.NestedString(repo.Object, "spec", "url")
		tag, _, _ := unstructured.NestedString(repo.Object, "spec", "ref", "tag")
		if url != tc.want || tag != GatewayAPIVersion {
			t.Errorf("mirror %q: GitRepository %s at %s, want %s at %s", tc.mirror, url, tag, tc.want, GatewayAPIVersion)
		}
	}
	p := prodParams()
	p.GatewayAPIRepoURL = "github.com/kubernetes-sigs/gateway-api"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "not an http(s) URL") {
		t.Errorf("a URL without a scheme: %v", err)
	}
}
