package pipeline

import (
	"context"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

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
	if _, err := cs.ApiextensionsV1().CustomResourceDefinitions().Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the ClusterIssuer CRD to be served", func() bool {
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
