package hostclusters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// markReady writes the status a controller writes for a Ready provisioned
// cluster of the current generation.
func markReady(t *testing.T, k *Kube, id string) {
	t.Helper()
	ctx := context.Background()
	res := k.dyn.Resource(GVR).Namespace(Namespace)
	obj, err := res.Get(ctx, id, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gen := obj.GetGeneration()
	cond := func(typ string) any {
		return map[string]any{"type": typ, "status": "True", "reason": "Done", "message": "done",
			"lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": gen}
	}
	_ = unstructured.SetNestedSlice(obj.Object, []any{cond("Provisioned"), cond("Ready")}, "status", "conditions")
	_ = unstructured.SetNestedField(obj.Object, "Ready", "status", "phase")
	_ = unstructured.SetNestedField(obj.Object, gen, "status", "observedGeneration")
	if _, err := res.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// startKube is a Registry on a fresh management sandbox with the CRD.
func startKube(t *testing.T) *Kube {
	t.Helper()
	sb, err := sandbox.Start(context.Background(), sandbox.Options{CRDDirs: []string{"../../config/crd/bases"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sb.Stop() })
	k, err := NewKube(sb.Config)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.EnsureNamespace(context.Background()); err != nil {
		t.Fatal(err)
	}
	return k
}

// race runs the requests at once and returns how many were accepted and
// the refusals.
func race(reqs ...func() (Observed, error)) (accepted int, refused []error) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Go(func() {
			_, err := r()
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				accepted++
			} else {
				refused = append(refused, err)
			}
		})
	}
	wg.Wait()
	return accepted, refused
}

// Requests that conflict end with exactly one accepted, the others refused
// as conflicts (409 for the API), and what was accepted shows at once.
func TestConflictingRequestsExactlyOneAccepted(t *testing.T) {
	ctx := context.Background()
	k := startKube(t)
	cacheCtx, stop := context.WithCancel(ctx)
	defer stop()
	if err := k.StartCache(cacheCtx); err != nil {
		t.Fatal(err)
	}
	n3 := 3
	cases := []struct {
		name string
		reqs func(id string) []func() (Observed, error)
		want string // the phase the accepted request shows
	}{
		{"ten changes at once", func(id string) []func() (Observed, error) {
			var out []func() (Observed, error)
			for i := range 10 {
				n := i + 2
				out = append(out, func() (Observed, error) { return k.Update(ctx, id, &n, "") })
			}
			return out
		}, "Updating"},
		{"a change and a teardown at once", func(id string) []func() (Observed, error) {
			return []func() (Observed, error){
				func() (Observed, error) { return k.Update(ctx, id, &n3, "") },
				func() (Observed, error) { return k.Teardown(ctx, id) },
			}
		}, ""},
		{"two teardowns at once", func(id string) []func() (Observed, error) {
			return []func() (Observed, error){
				func() (Observed, error) { return k.Teardown(ctx, id) },
				func() (Observed, error) { return k.Teardown(ctx, id) },
			}
		}, "TearingDown"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := fmt.Sprintf("race-%d", i)
			if err := k.Create(ctx, Spec{ID: id, Mode: Provision, Provider: "local", Plugin: "local", Inputs: map[string]string{"nodeCount": "1"}}); err != nil {
				t.Fatal(err)
			}
			markReady(t, k, id)
			accepted, refused := race(c.reqs(id)...)
			if accepted != 1 {
				t.Fatalf("%d accepted, want exactly 1 (refused: %v)", accepted, refused)
			}
			for _, err := range refused {
				if !IsRefused(err) {
					t.Errorf("refusal %v is not a conflict", err)
				}
			}
			o, err := k.Observe(ctx, []string{id})
			if err != nil {
				t.Fatal(err)
			}
			if c.want != "" && o[id].Phase != c.want {
				t.Errorf("the next read shows %q, want %q at once", o[id].Phase, c.want)
			}
		})
	}
}

// A retry is accepted only for a Failed cluster, once per failure; a
// missing HostCluster is ErrNoHostCluster.
func TestRetryRefusalsOnARealAPIServer(t *testing.T) {
	ctx := context.Background()
	k := startKube(t)
	if _, err := k.Retry(ctx, "nope"); !errors.Is(err, ErrNoHostCluster) {
		t.Errorf("retry of a missing HostCluster: %v, want ErrNoHostCluster", err)
	}
	if err := k.Create(ctx, Spec{ID: "r1", Mode: Provision, Provider: "local", Plugin: "local"}); err != nil {
		t.Fatal(err)
	}
	var refused *RefusedError
	if _, err := k.Retry(ctx, "r1"); !errors.As(err, &refused) || refused.Phase != "Pending" {
		t.Errorf("retry of a Pending cluster: %v, want refused in Pending", err)
	}
	res := k.dyn.Resource(GVR).Namespace(Namespace)
	obj, _ := res.Get(ctx, "r1", metav1.GetOptions{})
	_ = unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"type": "Stalled", "status": "True", "reason": "Failed",
		"message": "boom", "lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": obj.GetGeneration()}}, "status", "conditions")
	if _, err := res.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	accepted, _ := race(func() (Observed, error) { return k.Retry(ctx, "r1") }, func() (Observed, error) { return k.Retry(ctx, "r1") })
	if accepted != 1 {
		t.Errorf("two retries at once: %d accepted, want 1", accepted)
	}
	if _, err := k.Retry(ctx, "r1"); !IsRefused(err) {
		t.Errorf("a retry while one is pending: %v, want refused", err)
	}
}

// A provisioning the plugin called TERMINAL is not retried: starting it
// again cannot succeed.
func TestRetryOfATerminalFailureIsRefused(t *testing.T) {
	ctx := context.Background()
	k := startKube(t)
	if err := k.Create(ctx, Spec{ID: "t1", Mode: Provision, Provider: "local", Plugin: "local"}); err != nil {
		t.Fatal(err)
	}
	res := k.dyn.Resource(GVR).Namespace(Namespace)
	obj, _ := res.Get(ctx, "t1", metav1.GetOptions{})
	cond := func(typ, status, reason string) any {
		return map[string]any{"type": typ, "status": status, "reason": reason, "message": "region retired",
			"lastTransitionTime": "2026-12-01T00:00:00Z", "observedGeneration": obj.GetGeneration()}
	}
	_ = unstructured.SetNestedSlice(obj.Object, []any{cond("Provisioned", "False", "ProvisioningTerminal"),
		cond("Stalled", "True", "ProvisioningTerminal")}, "status", "conditions")
	if _, err := res.UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var refused *RefusedError
	if _, err := k.Retry(ctx, "t1"); !errors.As(err, &refused) || !strings.Contains(refused.Reason, "TERMINAL") {
		t.Errorf("retry of a TERMINAL failure: %v, want refused naming TERMINAL", err)
	}
}
