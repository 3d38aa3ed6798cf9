package controller

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/internal/sandbox"
)

// A change of spec.nodeCount or spec.kubernetesVersion becomes one Update
// of the plugin, shown as phase Updating with the plugin's progress; its
// result is the observed status. A change the plugin refuses (a downgrade)
// leaves the cluster as it was, not Failed, and says why; the upgrade the
// plugin offers (v1.37.2 to 1.38) goes through. A disconnect
// deletes the secret-inputs Secret with the others.
func TestSpecChangeBecomesOnePluginUpdate(t *testing.T) {
	ctx := context.Background()
	target, err := sandbox.Start(ctx, sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Stop()
	e := newEnv(t, 3, target.Kubeconfig)
	e.credential("cred-1")
	hc := provisioned("u1")
	hc.Spec.Provisioning.SecretInputsRef = v1.SecretInputsName("u1")
	inputs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: v1.SecretInputsName("u1"), Namespace: v1.Namespace}}
	if err := e.c.Create(ctx, inputs); err != nil {
		t.Fatal(err)
	}
	if err := e.c.Create(ctx, hc); err != nil {
		t.Fatal(err)
	}
	e.waitPhase("u1", v1.PhaseBootstrappingFlux, 30*time.Second) // provisioned; this build has no pipeline

	change(t, e, "u1", func(hc *v1.HostCluster) { three := int32(3); hc.Spec.NodeCount = &three })
	hc = waitCondition(t, e, "u1", v1.ReasonUpdated)
	waitFor(t, "an Updating event with the plugin's progress", func() string { return updatingEvents(t, e, "u1") },
		func(msgs string) bool { return strings.Contains(msgs, "updating: testcloud: changing machines") })
	waitFor(t, "the finished update's operation forgotten", func() string {
		_ = e.c.Get(context.Background(), client.ObjectKeyFromObject(hc), hc)
		return hc.Annotations[v1.UpdateOperationAnnotation]
	}, func(op string) bool { return op == "" })

	change(t, e, "u1", func(hc *v1.HostCluster) { hc.Spec.KubernetesVersion = "1.36" })
	hc = waitCondition(t, e, "u1", v1.ReasonUpdateFailed)
	c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionUpdated)
	if !strings.Contains(c.Message, "cannot be downgraded") || hc.Status.Phase == v1.PhaseFailed {
		t.Errorf("a refused downgrade: phase %s, Updated %q; want the reason and the cluster not Failed", hc.Status.Phase, c.Message)
	}

	change(t, e, "u1", func(hc *v1.HostCluster) { hc.Spec.KubernetesVersion = "1.38" })
	waitCondition(t, e, "u1", v1.ReasonUpdated)
	state := os.Getenv("TESTCLOUD_STATE")
	if shape, _ := os.ReadFile(filepath.Join(state, "shape-u1")); string(shape) != "3 1.38" {
		t.Errorf("the plugin's cluster after the upgrade: %q, want 3 nodes at 1.38", shape)
	}
	calls, _ := os.ReadFile(filepath.Join(state, "update-u1"))
	if n := strings.Count(string(calls), "\n"); n != 2 {
		t.Errorf("Update accepted %d times, want 2 (the scale and the upgrade; the downgrade is refused)", n)
	}
	// Each Update carries the cluster as it is: the version it moves from
	// and its current inputs (the target sandbox has no nodes, so the
	// observed count, 0, leaves the node-count input as it was).
	current, _ := os.ReadFile(filepath.Join(state, "update-current-u1"))
	if want := "current version=v1.37.2 nodeCount=2\n"; string(current) != want+want {
		t.Errorf("the two Update requests carried %q; want %q twice", current, want)
	}

	if err := e.c.Delete(ctx, hc); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for err := e.c.Get(ctx, client.ObjectKeyFromObject(inputs), inputs); !apierrors.IsNotFound(err); err = e.c.Get(ctx, client.ObjectKeyFromObject(inputs), inputs) {
		if time.Now().After(deadline) {
			t.Fatalf("the secret-inputs Secret outlived its cluster: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// updatingEvents returns the messages of the Updating events of
// HostCluster id: the one status writer announces every phase change with
// one, so a phase passed within milliseconds is seen too. (The recorder's
// spam filter lets about 25 events of one object through at once, so only
// the first update of the test is checked this way.)
func updatingEvents(t *testing.T, e *env, id string) string {
	t.Helper()
	var events corev1.EventList
	if err := e.c.List(context.Background(), &events, client.InNamespace(v1.Namespace)); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, ev := range events.Items {
		if ev.InvolvedObject.Name == id && ev.Reason == string(v1.PhaseUpdating) {
			msgs = append(msgs, ev.Message)
		}
	}
	return strings.Join(msgs, "\n")
}

// waitFor polls get until ok says yes to what it returns, for up to 20s.
func waitFor(t *testing.T, what string, get func() string, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := get()
		if ok(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 20s; saw:\n%s", what, got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// change applies edit to HostCluster id's spec.
func change(t *testing.T, e *env, id string, edit func(*v1.HostCluster)) {
	t.Helper()
	hc := &v1.HostCluster{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc); err != nil {
		t.Fatal(err)
	}
	patch := client.MergeFrom(hc.DeepCopy())
	edit(hc)
	if err := e.c.Patch(context.Background(), hc, patch); err != nil {
		t.Fatal(err)
	}
}

// waitCondition waits until the Updated condition of HostCluster id has
// reason for its current generation.
func waitCondition(t *testing.T, e *env, id, reason string) *v1.HostCluster {
	t.Helper()
	hc := &v1.HostCluster{}
	deadline := time.Now().Add(20 * time.Second)
	for {
		_ = e.c.Get(context.Background(), client.ObjectKey{Namespace: v1.Namespace, Name: id}, hc)
		c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionUpdated)
		if c != nil && c.Reason == reason && c.ObservedGeneration == hc.Generation {
			return hc
		}
		if time.Now().After(deadline) {
			t.Fatalf("Updated condition %+v, phase %s (%s); want reason %s", c, hc.Status.Phase, hc.Status.Message, reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
