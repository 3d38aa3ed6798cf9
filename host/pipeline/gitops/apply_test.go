package gitops

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// applier applies objects the way kustomize-controller does: server-side
// apply, here with strict field validation so an unknown or misspelt field
// fails instead of being dropped.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(t *testing.T, sb *sandbox.Sandbox) applier {
	t.Helper()
	disc, err := discovery.NewDiscoveryClientForConfig(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	return applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}
}

func (a applier) apply(ctx context.Context, o *unstructured.Unstructured) error {
	m, err := a.mapper.RESTMapping(o.GroupVersionKind().GroupKind(), o.GroupVersionKind().Version)
	if err != nil {
		return err
	}
	body, err := json.Marshal(o.Object)
	if err != nil {
		return err
	}
	force := true
	_, err = a.dyn.Resource(m.Resource).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: "kustomize-controller", Force: &force, FieldValidation: "Strict"})
	return err
}

// TestTreeAppliesToAClusterWithOnlyFlux applies every built object to a
// real kube-apiserver that has nothing but Flux's HelmRepository and
// HelmRelease CRDs (and the flux-system namespace Flux's install makes):
// the API server validates each against its schema, and a kind whose CRD
// is missing would fail to map.
func TestTreeAppliesToAClusterWithOnlyFlux(t *testing.T) {
	ctx := t.Context()
	start := time.Now()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"testdata/fluxcrds"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	t.Logf("sandbox started in %v", time.Since(start))
	defer func(start time.Time) { t.Logf("applied in %v", time.Since(start)) }(time.Now())
	a := newApplier(t, sb)
	fluxNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: DefaultFluxNamespace}}
	if _, err := sb.Client.CoreV1().Namespaces().Create(ctx, fluxNS, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, name := range []string{"aws", "gcp", "minimal"} {
		objs := buildAll(t, variants()[name])
		// Namespaces first, as kustomize-controller orders them.
		for _, namespaces := range []bool{true, false} {
			for _, o := range objs {
				if (o.GetKind() == "Namespace") != namespaces {
					continue
				}
				if err := a.apply(ctx, o); err != nil {
					t.Errorf("%s: apply %s %s/%s: %v", name, o.GetKind(), o.GetNamespace(), o.GetName(), err)
				}
			}
		}
		// A StorageClass's provisioner is immutable; the next variant is
		// another provider.
		err := sb.Client.StorageV1().StorageClasses().Delete(ctx, StorageClassName, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}

	// What was stored is what was generated: the HelmRelease values survive.
	hr, err := a.dyn.Resource(gvkHelmRelease.GroupVersion().WithResource("helmreleases")).Namespace(DefaultFluxNamespace).
		Get(ctx, DatabaseRelease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(hr.Object, "spec", "values", "cluster", "initdb", "secret", "name"); got != DatabaseSecret {
		t.Errorf("stored database HelmRelease initdb secret %q, want %q", got, DatabaseSecret)
	}

	// The check can fail: a misspelt HelmRelease field is refused.
	bad := hr.DeepCopy()
	bad.SetManagedFields(nil)
	bad.SetResourceVersion("")
	_ = unstructured.SetNestedField(bad.Object, NamespaceData, "spec", "targetNamspace")
	if err := a.apply(ctx, bad); err == nil || !strings.Contains(err.Error(), "targetNamspace") {
		t.Errorf("applying a HelmRelease with a misspelt field: %v, want it refused", err)
	}
}
