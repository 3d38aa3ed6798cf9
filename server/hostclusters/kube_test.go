package hostclusters

import (
	"context"
	"errors"
	"maps"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

func TestKubeRegistryOnARealAPIServer(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Stop()
	reg, err := NewKube(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.EnsureNamespace(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reg.EnsureNamespace(ctx); err != nil {
		t.Fatalf("second EnsureNamespace: %v", err)
	}

	kc := []byte("apiVersion: v1\nkind: Config\n# as pasted\n")
	if err := reg.Create(ctx, Spec{ID: "c1", Mode: ConnectExisting, Provider: "aws", Region: "eu-north-1", Kubeconfig: kc}); err != nil {
		t.Fatal(err)
	}
	if err := reg.Create(ctx, Spec{ID: "c2", Mode: ProvisionEKS, Provider: "aws", Plugin: "aws-eks",
		Inputs: map[string]string{"nodeCount": "3"}, CredentialRef: "cred-1", Domain: "example.com"}); err != nil {
		t.Fatal(err)
	}
	sec, err := sb.Client.CoreV1().Secrets(Namespace).Get(ctx, KubeconfigSecretName("c1"), metav1.GetOptions{})
	if err != nil || string(sec.Data[KubeconfigSecretKey]) != string(kc) {
		t.Fatalf("kubeconfig Secret = %v, %v; want the bytes exactly as supplied", sec, err)
	}
	if got, err := reg.Kubeconfig(ctx, "c1"); err != nil || string(got) != string(kc) {
		t.Errorf("Kubeconfig(c1) = %q, %v", got, err)
	}
	if got, err := reg.Kubeconfig(ctx, "c2"); err != nil || got != nil {
		t.Errorf("Kubeconfig(c2) = %q, %v; want none yet", got, err)
	}
	obj, err := reg.dyn.Resource(GVR).Namespace(Namespace).Get(ctx, "c2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedString(obj.Object, "spec", "provisioning", "inputs", "nodeCount"); n != "3" {
		t.Errorf("spec.provisioning.inputs.nodeCount = %q", n)
	}
	if n, _, _ := unstructured.NestedInt64(obj.Object, "spec", "provisioning", "nodeCount"); n != 3 {
		t.Errorf("spec.provisioning.nodeCount = %d, want the typed count too", n)
	}
	if ref, _, _ := unstructured.NestedString(obj.Object, "spec", "connectKubeconfigSecretRef", "name"); ref != "" {
		t.Errorf("a provision carries a connect kubeconfig ref %q", ref)
	}

	// The controller reports a phase (derived from its conditions); List
	// sees it.
	unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"type": "Provisioned", "status": "False", "reason": "InProgress",
		"message": "creating VPC", "lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": obj.GetGeneration()}}, "status", "conditions")
	unstructured.SetNestedField(obj.Object, "Provisioning", "status", "phase")
	unstructured.SetNestedField(obj.Object, "creating VPC (2/9)", "status", "message")
	if _, err := reg.dyn.Resource(GVR).Namespace(Namespace).UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := reg.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// c1 has no status yet: DerivePhase calls that Pending, in the
	// request's own words.
	fresh := Observed{Phase: "Pending", Message: requestMessages["Pending"]}
	if len(got) != 2 || got["c2"] != (Observed{Phase: "Provisioning", Message: "creating VPC (2/9)"}) || got["c1"] != fresh {
		t.Errorf("List = %+v", got)
	}
	wantObserved := map[string]Observed{"c2": got["c2"], "c1": fresh}
	checkObserve := func(how string) {
		t.Helper()
		o, err := reg.Observe(ctx, []string{"c2", "nope", "c1"})
		if err != nil || !maps.Equal(o, wantObserved) {
			t.Errorf("Observe(c2, nope, c1) %s = %+v, %v; want %+v", how, o, err, wantObserved)
		}
	}
	checkObserve("before the cache (from List)")

	// The watch cache answers the same, without a round trip.
	cacheCtx, stop := context.WithCancel(ctx)
	defer stop()
	if err := reg.StartCache(cacheCtx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		cached, err := reg.List(ctx)
		if err == nil && len(cached) == 2 && cached["c2"] == got["c2"] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cache never matched the API: %+v vs %+v", cached, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	checkObserve("from the cache")

	// A second cluster with the same ID is refused by the API server.
	err = reg.Create(ctx, Spec{ID: "c1", Mode: ConnectExisting, Kubeconfig: kc})
	if !apierrors.IsAlreadyExists(errors.Unwrap(err)) {
		t.Fatalf("second create of c1 = %v, want AlreadyExists", err)
	}

	if err := reg.Delete(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	if err := reg.Delete(ctx, "c2"); err != nil {
		t.Fatalf("deleting a deleted HostCluster: %v", err)
	}
	// List reads the watch cache, which sees the delete a moment later.
	deadline = time.Now().Add(10 * time.Second)
	for got, _ := reg.List(ctx); len(got) != 1; got, _ = reg.List(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("after delete List = %+v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestUnconfiguredRefusesToCreate(t *testing.T) {
	if err := (Unconfigured{}).Create(context.Background(), Spec{ID: "x"}); !errors.Is(err, ErrNotConfigured) {
		t.Fatalf("Create = %v", err)
	}
}
