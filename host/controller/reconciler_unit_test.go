package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

// stubPipeline answers Run as told and records the clusters it forgot.
type stubPipeline struct {
	msg    string
	err    error
	forgot []string
}

func (s *stubPipeline) Run(context.Context, *v1.HostCluster, []byte) (string, error) {
	return s.msg, s.err
}

func (s *stubPipeline) Forget(hc *v1.HostCluster) { s.forgot = append(s.forgot, hc.Name) }

// reachable is a connected cluster whose access was validated before, in
// phase InstallingKubeOpera with a progress message, and its kubeconfig
// Secret.
func reachable() (*v1.HostCluster, *corev1.Secret) {
	hc := &v1.HostCluster{ObjectMeta: metav1.ObjectMeta{Name: "c1", Namespace: v1.Namespace, Generation: 1, Finalizers: []string{Finalizer}},
		Spec: v1.HostClusterSpec{Mode: v1.ModeConnectExisting, Provider: "other",
			ConnectKubeconfigSecretRef: &v1.SecretKeyRef{Name: v1.KubeconfigSecretName("c1")}}}
	hc.Status.Phase, hc.Status.Message, hc.Status.ObservedGeneration = v1.PhaseInstallingKubeOpera, "Flux is applying 0123456789ab", 1
	for _, typ := range []string{v1.ConditionAccessValidated, v1.ConditionFluxReady, v1.ConditionGitOpsPushed} {
		hc.SetCondition(typ, metav1.ConditionTrue, "Test", "done")
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: v1.KubeconfigSecretName("c1"), Namespace: v1.Namespace},
		Data: map[string][]byte{v1.KubeconfigSecretKey: []byte("apiVersion: v1\nkind: Config\n")}}
	return hc, s
}

func events(rec *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// One reconcile of a cluster the pipeline is taking on: the stored phase
// and message follow what the pipeline reported, and a Failed cluster gets
// a Warning event.
func TestReconcileRecordsThePipelinesOutcome(t *testing.T) {
	cases := []struct {
		name    string
		msg     string
		err     error
		phase   v1.Phase
		says    []string
		event   string
		requeue bool
	}{
		{name: "ready", msg: "KubeOpera installed by Flux at 0123456789ab", phase: v1.PhaseReady,
			says: []string{"KubeOpera installed"}, event: "Normal Ready KubeOpera installed", requeue: true}, // the inventory interval
		{name: "a transient error replaces the old message with what is retried and when", err: errors.New("read Secret x: etcdserver: timeout"),
			phase: v1.PhaseInstallingKubeOpera, says: []string{"InstallingKubeOpera hit an error: read Secret x: etcdserver: timeout; retrying at "}, requeue: true},
		{name: "waiting says when it is checked again", err: step.Wait(0, "waiting for Flux to apply 0123456789ab"),
			phase: v1.PhaseInstallingKubeOpera, says: []string{"waiting for Flux to apply 0123456789ab; checked again at "}, requeue: true},
		{name: "stalled is Failed with a Warning event", err: step.Stall(v1.ReasonApplyFailed, "Flux could not apply the GitOps tree: denied"),
			phase: v1.PhaseFailed, says: []string{"Flux could not apply the GitOps tree: denied"},
			event: "Warning Failed Flux could not apply the GitOps tree: denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc, kc := reachable()
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc, kc).WithStatusSubresource(hc).Build()
			rec := record.NewFakeRecorder(10)
			r := &Reconciler{Client: cl, Recorder: rec, Pipeline: &stubPipeline{msg: c.msg, err: c.err},
				PollInterval: 10 * time.Second, InventoryInterval: time.Hour}
			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)})
			if err != nil {
				t.Fatal(err)
			}
			stored := &v1.HostCluster{}
			if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), stored); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", stored.Status.Phase, stored.Status.Message)
			if stored.Status.Phase != c.phase || stored.Status.Phase != v1.DerivePhase(stored) {
				t.Errorf("phase %s (derived %s), want %s", stored.Status.Phase, v1.DerivePhase(stored), c.phase)
			}
			for _, s := range c.says {
				if !strings.Contains(stored.Status.Message, s) {
					t.Errorf("message %q, want it to say %q", stored.Status.Message, s)
				}
			}
			if (res.RequeueAfter > 0) != c.requeue {
				t.Errorf("requeue after %s, want one %v", res.RequeueAfter, c.requeue)
			}
			got := events(rec)
			if c.event == "" && len(got) != 0 || c.event != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.event)) {
				t.Errorf("events %q, want %q", got, c.event)
			}
			if c.phase == v1.PhaseFailed {
				again, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)})
				if err != nil || again.RequeueAfter != 0 || len(events(rec)) != 0 {
					t.Errorf("a Failed cluster was worked on again for the same spec: %+v, %v", again, err)
				}
			}
		})
	}
}

// A cluster whose kubeconfig cannot work is Failed at once, with a
// Warning event and the Stalled condition saying what is wrong.
func TestReconcileOfAnUnusableKubeconfigFailsWithAWarning(t *testing.T) {
	ctx := context.Background()
	hc, kc := reachable()
	hc.Status = v1.HostClusterStatus{}
	kc.Data[v1.KubeconfigSecretKey] = []byte("not: [yaml")
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc, kc).WithStatusSubresource(hc).Build()
	rec := record.NewFakeRecorder(10)
	r := &Reconciler{Client: cl, Recorder: rec, Pipeline: &stubPipeline{}, PollInterval: time.Second, AccessRetryWindow: time.Minute}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)}); err != nil {
		t.Fatal(err)
	}
	stored := &v1.HostCluster{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), stored); err != nil {
		t.Fatal(err)
	}
	stalled := meta.FindStatusCondition(stored.Status.Conditions, v1.ConditionStalled)
	if stored.Status.Phase != v1.PhaseFailed || stalled == nil || stalled.Reason != v1.ReasonInvalidKubeconfig ||
		!strings.Contains(stored.Status.Message, "kubeconfig Secret "+kc.Name) {
		t.Errorf("phase %s, message %q, Stalled %+v", stored.Status.Phase, stored.Status.Message, stalled)
	}
	if got := events(rec); len(got) != 1 || !strings.HasPrefix(got[0], "Warning Failed kubeconfig Secret") {
		t.Errorf("events %q, want one Warning", got)
	}
}

// A deleted cluster's finalizer makes the pipeline forget its connection
// and memo.
func TestFinalizeMakesThePipelineForgetTheCluster(t *testing.T) {
	ctx := context.Background()
	hc, _ := reachable()
	now := metav1.Now()
	hc.DeletionTimestamp = &now
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
	p := &stubPipeline{}
	r := &Reconciler{Client: cl, Recorder: record.NewFakeRecorder(10), Pipeline: p, CleanupTimeout: time.Second}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)}); err != nil {
		t.Fatal(err)
	}
	if len(p.forgot) != 1 || p.forgot[0] != "c1" {
		t.Errorf("the pipeline forgot %v, want [c1]", p.forgot)
	}
}

// A reconcile that reads a stale copy of the HostCluster (the cache
// behind a write this controller just made) does not write a phase over
// the newer conditions: here the copy has the failed teardown's annotation
// but not the Stalled condition written right after it, from which the
// phase would be InstallingKubeOpera while the stored cluster is Failed.
func TestAStaleReadDoesNotOverwriteThePhase(t *testing.T) {
	ctx := context.Background()
	hc, kc := reachable()
	hc.Annotations = map[string]string{v1.TeardownAnnotation: "r1", v1.TeardownFailedAnnotation: "r1"}
	hc.Status.Phase = v1.PhaseTearingDown // as stored before the failure
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc, kc).WithStatusSubresource(hc).Build()
	stale := &v1.HostCluster{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), stale); err != nil {
		t.Fatal(err)
	}
	stored := stale.DeepCopy()
	stored.Status.Phase, stored.Status.Message = v1.PhaseFailed, "teardown failed: VPC in use"
	stored.SetCondition(v1.ConditionStalled, metav1.ConditionTrue, v1.ReasonDestroyFailed, stored.Status.Message)
	if err := cl.Status().Update(ctx, stored); err != nil {
		t.Fatal(err)
	}
	reader := interceptor.NewClient(cl, interceptor.Funcs{Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
		if h, ok := obj.(*v1.HostCluster); ok {
			stale.DeepCopyInto(h)
			return nil
		}
		return c.Get(ctx, key, obj, opts...)
	}})
	r := &Reconciler{Client: reader, Recorder: record.NewFakeRecorder(10), Pipeline: &stubPipeline{}, PollInterval: time.Second}
	if _, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKeyFromObject(hc)}); err != nil {
		t.Fatal(err)
	}
	after := &v1.HostCluster{}
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), after); err != nil {
		t.Fatal(err)
	}
	if after.Status.Phase != v1.PhaseFailed || after.Status.Phase != v1.DerivePhase(after) {
		t.Errorf("stored phase %s (derived %s), message %q; want Failed", after.Status.Phase, v1.DerivePhase(after), after.Status.Message)
	}
}
