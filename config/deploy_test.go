// Package config holds the deploy manifests; this test proves that
// `kubectl apply -k config/default` is accepted by a real API server.
package config

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func TestDefaultKustomizationDeploys(t *testing.T) {
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "default")
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	kinds := map[string]int{}
	for _, r := range res.Resources() {
		kinds[r.GetKind()]++
		if r.GetKind() != "Namespace" && r.GetKind() != "CustomResourceDefinition" && r.GetKind() != "ClusterRole" &&
			r.GetKind() != "ClusterRoleBinding" && r.GetNamespace() != "kubeopera-system" {
			t.Errorf("%s %s is not in kubeopera-system", r.GetKind(), r.GetName())
		}
	}
	for _, k := range []string{"CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "ServiceAccount", "Deployment", "Namespace"} {
		if kinds[k] != 1 {
			t.Errorf("%d %s in config/default, want 1", kinds[k], k)
		}
	}

	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	dyn := dynamic.NewForConfigOrDie(sb.Config)
	disc := discovery.NewDiscoveryClientForConfigOrDie(sb.Config)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	// Namespaces and CRDs first, as kubectl orders them.
	for _, pass := range []func(string) bool{
		func(k string) bool { return k == "Namespace" || k == "CustomResourceDefinition" },
		func(k string) bool { return k != "Namespace" && k != "CustomResourceDefinition" },
	} {
		for _, r := range res.Resources() {
			if !pass(r.GetKind()) {
				continue
			}
			m, err := r.Map()
			if err != nil {
				t.Fatal(err)
			}
			obj := &unstructured.Unstructured{Object: m}
			gvk := obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Fatalf("%s: %v", gvk, err)
			}
			var ri dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				ri = dyn.Resource(mapping.Resource).Namespace(obj.GetNamespace())
			}
			if _, err := ri.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
				t.Errorf("apply %s %s: %v", gvk.Kind, obj.GetName(), err)
			}
		}
		mapper.Reset()
	}
}
