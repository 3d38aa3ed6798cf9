package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

func kustomization(name, policy string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kustomizations.GroupVersion().String(), "kind": "Kustomization",
		"metadata": map[string]any{"name": name, "namespace": FluxNamespace, "uid": name + "-uid"}, "spec": map[string]any{}}}
	if policy != "" {
		_ = unstructured.SetNestedField(u.Object, policy, "spec", "deletionPolicy")
	}
	return u
}

// A Kustomization made without a deletion policy gets Orphan before it is
// deleted: deleting it must not make Flux delete what it applied.
func TestDeleteFluxObjectSetsOrphanFirst(t *testing.T) {
	ctx := context.Background()
	old := kustomization("old", "")
	dyn := dynfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kustomizations: "KustomizationList"}, old)
	res := dyn.Resource(kustomizations).Namespace(FluxNamespace)
	if err := deleteFluxObject(ctx, res, kustomizations, old); err != nil {
		t.Fatal(err)
	}
	var verbs []string
	for _, a := range dyn.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if strings.Join(verbs, ",") != "patch,delete" {
		t.Errorf("calls %v, want patch (deletionPolicy Orphan) then delete", verbs)
	}
	if p, ok := dyn.Actions()[0].(interface{ GetPatch() []byte }); !ok || !strings.Contains(string(p.GetPatch()), `"deletionPolicy":"Orphan"`) {
		t.Errorf("first call is not the Orphan patch: %+v", dyn.Actions()[0])
	}

	// Already Orphan: deleted as it is; already being deleted: left alone.
	orphan, pending := kustomization("orphan", "Orphan"), kustomization("pending", "")
	now := metav1.NewTime(time.Now())
	pending.SetDeletionTimestamp(&now)
	dyn = dynfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kustomizations: "KustomizationList"}, orphan)
	res = dyn.Resource(kustomizations).Namespace(FluxNamespace)
	for _, o := range []*unstructured.Unstructured{orphan, pending} {
		if err := deleteFluxObject(ctx, res, kustomizations, o); err != nil {
			t.Fatal(err)
		}
	}
	if len(dyn.Actions()) != 1 || dyn.Actions()[0].GetVerb() != "delete" {
		t.Errorf("calls %+v, want one delete", dyn.Actions())
	}
}

// What a finished disconnect says was left on the target.
func TestCleanupOutcome(t *testing.T) {
	if s := cleanupOutcome("c1", nil, errString("connection refused")); !strings.Contains(s, "left on it GitRepository flux-system/kubeopera-c1") ||
		!strings.Contains(s, "connection refused") {
		t.Errorf("unreachable: %q", s)
	}
	if s := cleanupOutcome("c1", []string{"Kustomization flux-system/kubeopera-c1-apps"}, nil); !strings.Contains(s, "did not release Kustomization flux-system/kubeopera-c1-apps") {
		t.Errorf("stuck: %q", s)
	}
	if s := cleanupOutcome("c1", nil, nil); !strings.Contains(s, "keep running on the target") {
		t.Errorf("clean: %q", s)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// While a disconnect waits for the target, the message says for what, and
// when it is tried again and given up; the deferred status write derives
// Deleting from it.
func TestDeletingSaysWhatItWaitsForAndWhen(t *testing.T) {
	cases := []struct {
		name string
		left []string
		err  error
		says []string
	}{
		{name: "Flux still releasing", left: []string{"Kustomization flux-system/kubeopera-c1-apps"},
			says: []string{"waiting for Flux to release Kustomization flux-system/kubeopera-c1-apps", "given up in ", "checked again at"}},
		{name: "target unreachable", err: errString("connection refused"),
			says: []string{"cannot reach the target", "connection refused", "retrying at"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc, _ := reachable()
			now := metav1.Now()
			hc.DeletionTimestamp = &now
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
			r := &Reconciler{Client: cl, Recorder: record.NewFakeRecorder(10), CleanupTimeout: 30 * time.Second}
			done, after := r.deleting(hc, c.left, c.err)
			if done || after != time.Second {
				t.Errorf("done %v, again in %s; want not done, again in 1s", done, after)
			}
			r.observe(ctx, hc, "") // what the deferred status write does
			stored := hc
			if stored.Status.Phase != v1.PhaseDeleting {
				t.Errorf("phase %s, want Deleting", stored.Status.Phase)
			}
			for _, s := range c.says {
				if !strings.Contains(stored.Status.Message, s) {
					t.Errorf("message %q, want it to say %q", stored.Status.Message, s)
				}
			}
		})
	}
}
