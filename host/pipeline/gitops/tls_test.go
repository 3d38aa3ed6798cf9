package gitops

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// The tls layer builds to the ClusterIssuer the Gateway (or the Ingresses)
// name: Let's Encrypt, HTTP-01 through the Gateway's port-80 listener (or
// the tree's ingress class), the account email from AdminEmail or else
// admin@<domain>, labelled like the rest.
func TestTLSLayerIsTheClusterIssuerTheGatewayNames(t *testing.T) {
	withEmail := prodParams()
	withEmail.AdminEmail, withEmail.ClusterIssuer = "ops@example.org", "acme-prod"
	noEmail := minimalParams()
	for name, tc := range map[string]struct {
		p                 Params
		issuer, wantEmail string
	}{
		"admin email":   {withEmail, "acme-prod", "ops@example.org"},
		"default":       {noEmail, DefaultClusterIssuer, "admin@" + noEmail.Domain},
		"ingress-nginx": {nginxParams(), DefaultClusterIssuer, "admin@example.com"},
	} {
		t.Run(name, func(t *testing.T) {
			tree := generate(t, tc.p)
			objs := build(t, tc.p, tree, TLSDir)
			issuers := ofKind(objs, clusterIssuerGVK)
			if len(issuers) != 1 {
				t.Fatalf("tls layer: %d cert-manager.io/v1 ClusterIssuers, want one", len(issuers))
			}
			ci := issuers[0]
			for _, o := range objs {
				if o.GetLabels()[v1alpha1.ClusterIDLabel] != tc.p.ClusterID {
					t.Errorf("%s %s labels %v lack the cluster ID", o.GetKind(), o.GetName(), o.GetLabels())
				}
			}
			if ci.GetName() != tc.issuer {
				t.Errorf("ClusterIssuer name %q, want %q", ci.GetName(), tc.issuer)
			}
			if ci.GetLabels()[v1alpha1.ClusterIDLabel] != tc.p.ClusterID {
				t.Errorf("ClusterIssuer labels %v lack the cluster ID", ci.GetLabels())
			}
			for path, want := range map[string]string{
				"spec.acme.server":                   ACMEServer,
				"spec.acme.email":                    tc.wantEmail,
				"spec.acme.privateKeySecretRef.name": tc.issuer + "-account-key",
			} {
				if got := nested(ci, path); got != want {
					t.Errorf("%s = %q, want %q", path, got, want)
				}
			}
			solvers, _, _ := unstructured.NestedSlice(ci.Object, "spec", "acme", "solvers")
			if len(solvers) != 1 {
				t.Fatalf("solvers %v, want one", solvers)
			}
			checkSolver(t, tc.p, solvers[0].(map[string]any), objs)
			publishers := append(ofKind(buildAll(t, tc.p), gvkIngress), ofKind(objs, gvkGateway)...)
			if len(publishers) == 0 {
				t.Fatal("neither a Gateway nor an Ingress names the issuer")
			}
			for _, o := range publishers {
				if got := o.GetAnnotations()["cert-manager.io/cluster-issuer"]; got != tc.issuer {
					t.Errorf("%s %s names issuer %q, the tree creates %q", o.GetKind(), o.GetName(), got, tc.issuer)
				}
			}
		})
	}
	if got := withEmail.TLSPath(); got != "./clusters/prod-eu/tls" {
		t.Errorf("TLSPath = %q", got)
	}
}

// checkSolver: HTTP-01 through ingress-nginx's class when asked for, else
// through a listener of the tls layer's own Gateway that takes plain HTTP
// on port 80, where Let's Encrypt asks.
func checkSolver(t *testing.T, p Params, solver map[string]any, tls []*unstructured.Unstructured) {
	t.Helper()
	if p.IngressNginx {
		class, _, _ := unstructured.NestedString(solver, "http01", "ingress", "ingressClassName")
		if class != IngressClassName {
			t.Errorf("HTTP-01 ingress class %q, want %q", class, IngressClassName)
		}
		return
	}
	refs, _, _ := unstructured.NestedSlice(solver, "http01", "gatewayHTTPRoute", "parentRefs")
	if len(refs) != 1 {
		t.Fatalf("HTTP-01 gatewayHTTPRoute parentRefs %v, want one", refs)
	}
	ref := refs[0].(map[string]any)
	var gw gatewayv1.Gateway
	fromUnstructured(t, find(t, tls, "Gateway", ref["name"].(string)), &gw)
	if gw.Namespace != ref["namespace"] {
		t.Errorf("solver's Gateway namespace %v, the Gateway is in %s", ref["namespace"], gw.Namespace)
	}
	for _, l := range gw.Spec.Listeners {
		if string(l.Name) == ref["sectionName"] {
			if l.Protocol != gatewayv1.HTTPProtocolType || l.Port != 80 || l.Hostname != nil {
				t.Errorf("solver's listener %+v, want plain HTTP on port 80 for every host", l)
			}
			return
		}
	}
	t.Errorf("solver's sectionName %v is no listener of Gateway %s", ref["sectionName"], gw.Name)
}

var (
	clusterIssuerGVK = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "ClusterIssuer"}
	gvkGateway       = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "Gateway"}
	gvkHTTPRoute     = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}
)

func nested(o *unstructured.Unstructured, path string) string {
	s, _, _ := unstructured.NestedString(o.Object, strings.Split(path, ".")...)
	return s
}
