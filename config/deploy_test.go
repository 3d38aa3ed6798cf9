// Package config holds the deploy manifests; these tests prove that
// `kubectl apply -k config/default` is accepted by a real API server and
// that the ServiceAccounts it makes hold exactly what the server, the
// controller and the Terraform Job runner use.
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
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func build(t *testing.T) resmap.ResMap {
	t.Helper()
	res, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), "default")
	if err != nil {
		t.Fatalf("kustomize build config/default: %v", err)
	}
	return res
}

func TestDefaultKustomizationHasTheManagementSide(t *testing.T) {
	kinds := map[string]int{}
	for _, r := range build(t).Resources() {
		kinds[r.GetKind()]++
		clusterScoped := map[string]bool{"Namespace": true, "CustomResourceDefinition": true, "ClusterRole": true, "ClusterRoleBinding": true}
		want := "kubeopera-system"
		if r.GetNamespace() == "kubeopera-provisioning" && (r.GetKind() == "Role" || r.GetKind() == "RoleBinding") {
			want = "kubeopera-provisioning"
		}
		if !clusterScoped[r.GetKind()] && r.GetNamespace() != want {
			t.Errorf("%s %s is in %q, want %s", r.GetKind(), r.GetName(), r.GetNamespace(), want)
		}
		if r.GetKind() == "Deployment" {
			m, err := r.Map()
			if err != nil {
				t.Fatal(err)
			}
			checkDeployment(t, &unstructured.Unstructured{Object: m})
		}
	}
	want := map[string]int{"CustomResourceDefinition": 1, "Namespace": 2, "ServiceAccount": 2, "Deployment": 2, "Service": 1,
		"ClusterRole": 1, "ClusterRoleBinding": 1, "Role": 3, "RoleBinding": 3}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s in config/default, want %d", kinds[k], k, n)
		}
	}
}

// apply creates every object of config/default as kubectl would order
// them: namespaces and CRDs first.
func apply(t *testing.T, cfg *rest.Config, res resmap.ResMap) {
	t.Helper()
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
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
				t.Fatalf("apply %s %s: %v", gvk.Kind, obj.GetName(), err)
			}
		}
		mapper.Reset()
	}
}

func TestDefaultKustomizationDeploys(t *testing.T) {
	sb, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	apply(t, sb.Config, build(t))
}

// checkDeployment: the image make image builds, the database URL and the
// encryption key from the operator's Secrets, probes, and Terraform as
// Jobs for the controller.
func checkDeployment(t *testing.T, d *unstructured.Unstructured) {
	t.Helper()
	containers, _ := dig(d.Object, "spec", "template", "spec", "containers").([]any)
	if len(containers) != 1 {
		t.Fatalf("%s has %d containers, want 1", d.GetName(), len(containers))
	}
	c := containers[0].(map[string]any)
	if c["image"] != "ghcr.io/ochestra-tech/kubeopera:latest" {
		t.Errorf("%s runs image %v, want ghcr.io/ochestra-tech/kubeopera:latest", d.GetName(), c["image"])
	}
	env := map[string]string{}
	list, _ := c["env"].([]any)
	for _, e := range list {
		e := e.(map[string]any)
		name, _ := e["name"].(string)
		if secret, ok := dig(e, "valueFrom", "secretKeyRef", "name").(string); ok {
			env[name] = "secret:" + secret
		} else {
			env[name], _ = e["value"].(string)
		}
	}
	want := map[string]string{"KUBEOPERA_DATABASE_URL": "secret:kubeopera-database", "KUBEOPERA_ENCRYPTION_KEY": "secret:kubeopera-encryption"}
	if d.GetName() == "kubeopera-controller" {
		want["KUBEOPERA_TERRAFORM_EXECUTOR"] = "job"
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s: env %s = %q, want %q", d.GetName(), k, env[k], v)
		}
	}
	for _, probe := range []string{"livenessProbe", "readinessProbe"} {
		if _, ok := c[probe]; !ok {
			t.Errorf("%s has no %s", d.GetName(), probe)
		}
	}
}

// dig walks nested maps without copying (kustomize's maps hold Go ints,
// which unstructured's helpers refuse to deep-copy).
func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}
