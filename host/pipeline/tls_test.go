package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"

	"github.com/ochestra-tech/kubeopera/host/pipeline/gitops"
)

var clusterIssuerGVK = schema.GroupVersionKind{Group: "cert-manager.io", Version: "v1", Kind: "ClusterIssuer"}

// installClusterIssuerCRD gives the target the ClusterIssuer kind, as the
// cert-manager chart does on a real cluster (no helm-controller runs here),
// so the real kustomize-controller can apply the tree's tls layer. The
// schema keeps every field: the test checks what Flux applied, not
// cert-manager's validation.
func installClusterIssuerCRD(t *testing.T, cfg *rest.Config) {
	t.Helper()
	cs, err := apiext.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	installGatewayAPICRDs(t, cs)
	preserve := true
	crd := &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "clusterissuers.cert-manager.io"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "cert-manager.io", Scope: apiextv1.ClusterScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "clusterissuers", Singular: "clusterissuer",
				Kind: "ClusterIssuer", ListKind: "ClusterIssuerList"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
	createCRD(t, cs, crd)
}

// installGatewayAPICRDs gives the target the Gateway API standard CRDs of
// the release the tree installs, read from its Go module, as the tree's
// gateway-api Kustomization does on a real cluster (the sandbox reaches no
// GitHub), so the tls layer's Gateway and HTTPRoutes apply and are
// validated against the real schemas.
func installGatewayAPICRDs(t *testing.T, cs apiext.Interface) {
	t.Helper()
	out, err := exec.Command("go", "mod", "download", "-json", "sigs.k8s.io/gateway-api@"+gitops.GatewayAPIVersion).Output()
	var info struct{ Dir string }
	if err != nil || json.Unmarshal(out, &info) != nil || info.Dir == "" {
		t.Fatalf("download sigs.k8s.io/gateway-api@%s: %v", gitops.GatewayAPIVersion, err)
	}
	files, err := filepath.Glob(filepath.Join(info.Dir, "config", "crd", "standard", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("Gateway API CRDs: %v (%d files)", err, len(files))
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		crd := &apiextv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(body, crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if crd.Kind == "CustomResourceDefinition" {
			createCRD(t, cs, crd)
		}
	}
}

// createCRD creates crd and waits until it is served.
func createCRD(t *testing.T, cs apiext.Interface, crd *apiextv1.CustomResourceDefinition) {
	t.Helper()
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the "+crd.Name+" CRD to be served", func() bool {
		got, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), crd.Name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, c := range got.Status.Conditions {
			if c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue {
				return true
			}
		}
		return false
	})
}

// checkGateway waits until kustomize-controller has applied the tree's
// Gateway and one HTTPRoute per host, and finds no Ingress: KubeOpera is
// published through Gateway API, not ingress-nginx.
func checkGateway(t *testing.T, f *fixture, hc *v1.HostCluster) {
	t.Helper()
	ctx := context.Background()
	var gw gatewayv1.Gateway
	waitFor(t, 2*time.Minute, "Flux to apply the Gateway", func() bool {
		return f.targetC.Get(ctx, client.ObjectKey{Namespace: gitops.NamespaceSystem, Name: gitops.GatewayName}, &gw) == nil
	})
	if gw.Labels[fluxAppliedLabel] == "" || gw.Annotations["cert-manager.io/cluster-issuer"] != gitops.DefaultClusterIssuer {
		t.Errorf("Gateway labels %v, annotations %v; want applied by Flux, naming the ClusterIssuer", gw.Labels, gw.Annotations)
	}
	// kustomize-controller applies the layer's objects one request at a
	// time: the Gateway can be there a moment before the second route.
	var routes gatewayv1.HTTPRouteList
	waitFor(t, 2*time.Minute, "Flux to apply both HTTPRoutes", func() bool {
		return f.targetC.List(ctx, &routes, client.InNamespace(gitops.NamespaceSystem)) == nil && len(routes.Items) >= 2
	})
	hosts := map[string]bool{}
	for _, r := range routes.Items {
		for _, h := range r.Spec.Hostnames {
			hosts[string(h)] = true
		}
	}
	if len(routes.Items) != 2 || !hosts[hc.Spec.Domain] || !hosts["api."+hc.Spec.Domain] {
		t.Errorf("%d HTTPRoutes for %v; want one for %s and one for api.%s", len(routes.Items), hosts, hc.Spec.Domain, hc.Spec.Domain)
	}
	var ingresses networkingv1.IngressList
	if err := f.targetC.List(ctx, &ingresses); err != nil || len(ingresses.Items) != 0 {
		t.Errorf("%d Ingresses on the target (err %v), want none", len(ingresses.Items), err)
	}
	if want := "Gateway " + gitops.NamespaceSystem + "/" + gitops.GatewayName; !strings.Contains(hc.Status.Message, want) {
		t.Errorf("Ready message %q does not name %s for DNS", hc.Status.Message, want)
	}
}

// checkClusterIssuer waits until kustomize-controller has applied the
// tree's ClusterIssuer with the ACME account and solver the tree sets.
func checkClusterIssuer(t *testing.T, f *fixture) {
	t.Helper()
	ci := &unstructured.Unstructured{}
	ci.SetGroupVersionKind(clusterIssuerGVK)
	waitFor(t, 2*time.Minute, "Flux to apply the ClusterIssuer", func() bool {
		return f.targetC.Get(context.Background(), client.ObjectKey{Name: gitops.DefaultClusterIssuer}, ci) == nil
	})
	server, _, _ := unstructured.NestedString(ci.Object, "spec", "acme", "server")
	if server != gitops.ACMEServer || ci.GetLabels()[fluxAppliedLabel] == "" {
		t.Errorf("ClusterIssuer %s: ACME server %q, labels %v; want %s, applied by Flux", ci.GetName(), server, ci.GetLabels(), gitops.ACMEServer)
	}
}

// appliedClusterIssuers lists the ClusterIssuers Flux applied, not being
// deleted, for the orphan check.
func appliedClusterIssuers(t *testing.T, f *fixture, out map[string]types.UID) {
	t.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(clusterIssuerGVK.GroupVersion().WithKind("ClusterIssuerList"))
	if err := f.targetC.List(context.Background(), list, client.HasLabels{fluxAppliedLabel}); err != nil {
		return // no such kind on this target
	}
	for _, ci := range list.Items {
		if ci.GetDeletionTimestamp() == nil {
			out["ClusterIssuer/"+ci.GetName()] = ci.GetUID()
		}
	}
}
