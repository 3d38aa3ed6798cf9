package gitops

import (
	"path"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// prodParams is a full set of parameters, as the platform passes them for
// a self-managed AWS cluster.
func prodParams() Params {
	return Params{
		ClusterID: "prod-eu-1", ClusterName: "Production EU", Domain: "ops.example.com",
		Path: "clusters/prod-eu", Version: "v0.4.0", PullSecret: "kubeopera-pull",
		AdminEmail: "admin@example.com", Provider: ProviderAWS,
	}
}

// minimalParams sets only what is required: tree at the repository root,
// no pull secret, a cluster of unknown provider.
func minimalParams() Params {
	return Params{ClusterID: "c1", Domain: "kubeopera.example.org", Version: "1.0.0"}
}

func generate(t *testing.T, p Params) Tree {
	t.Helper()
	tree, err := Generate(p)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return tree
}

// build runs kustomize, as kustomize-controller does, over the tree's dir
// (InfrastructureDir or AppsDir) in an in-memory copy of the repository.
func build(t *testing.T, p Params, tree Tree, dir string) []*unstructured.Unstructured {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for name, body := range tree {
		if err := fs.WriteFile("/"+name, body); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, "/"+path.Join(p.Path, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range resources.Resources() {
		m, err := r.Map()
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", dir, r.CurId(), err)
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
	if len(objs) == 0 {
		t.Fatalf("kustomize build %s: no objects", dir)
	}
	return objs
}

// buildAll builds both directories.
func buildAll(t *testing.T, p Params) []*unstructured.Unstructured {
	t.Helper()
	tree := generate(t, p)
	return append(build(t, p, tree, InfrastructureDir), build(t, p, tree, AppsDir)...)
}

// find returns the object of kind named name, failing the test without one.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s among %d objects", kind, name, len(objs))
	return nil
}

func ofKind(objs []*unstructured.Unstructured, gvk schema.GroupVersionKind) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GroupVersionKind() == gvk {
			out = append(out, o)
		}
	}
	return out
}

func str(t *testing.T, o *unstructured.Unstructured, fields ...string) string {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(o.Object, fields...)
	if err != nil || !ok {
		t.Fatalf("%s %s: no %v (%v)", o.GetKind(), o.GetName(), fields, err)
	}
	s, isString := v.(string)
	if !isString {
		t.Fatalf("%s %s: %v is %T, not a string", o.GetKind(), o.GetName(), fields, v)
	}
	return s
}
