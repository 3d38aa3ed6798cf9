package gitops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

// fluxCRDDirs are the CRDs of the Flux kinds the tree uses: HelmRelease
// and HelmRepository from testdata, GitRepository and Kustomization from
// source-controller's and kustomize-controller's own modules at the
// version of their APIs in go.mod.
func fluxCRDDirs(t *testing.T) []string {
	t.Helper()
	for _, api := range []string{"github.com/fluxcd/source-controller/api", "github.com/fluxcd/kustomize-controller/api"} {
		if v := goModVersion(t, api); v != fluxVersion {
			t.Fatalf("go.mod requires %s %s; the test reads the CRDs of %s", api, v, fluxVersion)
		}
	}
	src := moduleDir(t, "github.com/fluxcd/source-controller", fluxVersion)
	gitRepos := t.TempDir()
	body, err := os.ReadFile(filepath.Join(src, "config", "crd", "bases", "source.toolkit.fluxcd.io_gitrepositories.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitRepos, "gitrepositories.yaml"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	ks := moduleDir(t, "github.com/fluxcd/kustomize-controller", fluxVersion)
	return []string{"testdata/fluxcrds", gitRepos, filepath.Join(ks, "config", "crd", "bases")}
}

// fluxVersion is the release of the Flux APIs in go.mod.
const fluxVersion = "v1.9.6"

// TestTreeAppliesToAClusterWithOnlyFlux applies every built object to a
// real kube-apiserver that has nothing but Flux's CRDs (and the
// flux-system namespace Flux's install makes):
// the API server validates each against its schema, and a kind whose CRD
// is missing would fail to map.
func TestTreeAppliesToAClusterWithOnlyFlux(t *testing.T) {
	ctx := t.Context()
	start := time.Now()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: fluxCRDDirs(t)})
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

	for _, name := range []string{"aws", "gcp", "minimal", "ingress-nginx"} {
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

// TestTLSLayerAppliesOnceItsCRDsExist applies the tls layer (the
// ClusterIssuer, GatewayClass, Gateway and HTTPRoutes) strictly to a real
// kube-apiserver serving the CRDs the infrastructure layer installs: Gateway
// API's standard channel at the pinned release and cert-manager's at the
// pinned chart's release, both from their Go modules. The API server then
// validates the Gateway, the routes and the gatewayHTTPRoute solver.
func TestTLSLayerAppliesOnceItsCRDsExist(t *testing.T) {
	ctx := t.Context()
	gw := moduleDir(t, "sigs.k8s.io/gateway-api", GatewayAPIVersion)
	cm := moduleDir(t, "github.com/cert-manager/cert-manager", chartCertManager.version)
	start := time.Now()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{
		filepath.Join(gw, "config", "crd", "standard"), filepath.Join(cm, "deploy", "crds")}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	t.Logf("sandbox with Gateway API %s and cert-manager %s CRDs started in %v", GatewayAPIVersion,
		chartCertManager.version, time.Since(start))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: NamespaceSystem}}
	if _, err := sb.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a := newApplier(t, sb)
	p := prodParams()
	objs := build(t, p, generate(t, p), TLSDir)
	kinds := map[string]int{}
	for _, o := range objs {
		if err := a.apply(ctx, o); err != nil {
			t.Errorf("apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		kinds[o.GetKind()]++
	}
	if kinds["Gateway"] != 1 || kinds["HTTPRoute"] != 2 || kinds["GatewayClass"] != 1 || kinds["ClusterIssuer"] != 1 {
		t.Errorf("applied %v; want a GatewayClass, a Gateway, two HTTPRoutes and a ClusterIssuer", kinds)
	}
	// The check can fail: a listener without a port is refused.
	bad := find(t, objs, "Gateway", GatewayName) // built objects hold ints, which DeepCopy refuses
	delete(bad.Object["spec"].(map[string]any)["listeners"].([]any)[0].(map[string]any), "port")
	if err := a.apply(ctx, bad); err == nil {
		t.Error("a Gateway listener without a port was accepted")
	}
}
