package gitops

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// The tls layer builds to exactly the ClusterIssuer the Ingresses name:
// Let's Encrypt, HTTP-01 through the tree's ingress class, the account
// email from AdminEmail or else admin@<domain>, labelled like the rest.
func TestTLSLayerIsTheClusterIssuerTheIngressesName(t *testing.T) {
	withEmail := prodParams()
	withEmail.AdminEmail, withEmail.ClusterIssuer = "ops@example.org", "acme-prod"
	noEmail := minimalParams()
	for name, tc := range map[string]struct {
		p                 Params
		issuer, wantEmail string
	}{
		"admin email": {withEmail, "acme-prod", "ops@example.org"},
		"default":     {noEmail, DefaultClusterIssuer, "admin@" + noEmail.Domain},
	} {
		t.Run(name, func(t *testing.T) {
			tree := generate(t, tc.p)
			objs := build(t, tc.p, tree, TLSDir)
			if len(objs) != 1 || objs[0].GetKind() != "ClusterIssuer" || objs[0].GetAPIVersion() != "cert-manager.io/v1" {
				t.Fatalf("tls layer: %d objects, first %v; want one cert-manager.io/v1 ClusterIssuer", len(objs), objs)
			}
			ci := objs[0]
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
			class, _, _ := unstructured.NestedString(solvers[0].(map[string]any), "http01", "ingress", "ingressClassName")
			if class != IngressClassName {
				t.Errorf("HTTP-01 ingress class %q, want %q", class, IngressClassName)
			}
			for _, ing := range ofKind(buildAll(t, tc.p), gvkIngress) {
				if got := ing.GetAnnotations()["cert-manager.io/cluster-issuer"]; got != tc.issuer {
					t.Errorf("Ingress %s names issuer %q, the tree creates %q", ing.GetName(), got, tc.issuer)
				}
			}
		})
	}
	if got := withEmail.TLSPath(); got != "./clusters/prod-eu/tls" {
		t.Errorf("TLSPath = %q", got)
	}
}

func nested(o *unstructured.Unstructured, path string) string {
	s, _, _ := unstructured.NestedString(o.Object, strings.Split(path, ".")...)
	return s
}
