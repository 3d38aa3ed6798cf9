package controller

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// stubProvider answers Destroy and Status as told; the other calls are not
// used by a teardown.
type stubProvider struct {
	sdk.Provider
	destroyErr error
	status     sdk.OperationStatus
	destroys   int
}

func (s *stubProvider) Destroy(context.Context, sdk.DestroyRequest) (sdk.Operation, error) {
	s.destroys++
	if s.destroyErr != nil {
		return sdk.Operation{}, s.destroyErr
	}
	return sdk.Operation{ID: "destroy-1"}, nil
}

func (s *stubProvider) Status(context.Context, sdk.StatusRequest) (sdk.OperationStatus, error) {
	return s.status, nil
}

type stubProviders struct{ p *stubProvider }

func (s stubProviders) Provider(string) (sdk.Provider, error) { return s.p, nil }

type stubCredentials struct{ err error }

func (s stubCredentials) Resolve(context.Context, string) (sdk.Credentials, error) {
	return sdk.Credentials{"accessKeyId": "x"}, s.err
}

// The teardown step, one reconcile each, with a fake management client and
// a stub plugin: what it reports and what it leaves on the HostCluster.
func TestTeardownStep(t *testing.T) {
	cases := []struct {
		name       string
		provider   stubProvider
		creds      error
		connected  bool
		phase      v1.Phase
		says       string
		requeue    bool
		opRecorded bool
		failedMark bool
		gone       bool
	}{
		{name: "running", provider: stubProvider{status: sdk.OperationStatus{State: sdk.Running, Progress: 40, Message: "deleting the node group"}},
			phase: v1.PhaseTearingDown, says: "tearing down: testcloud: deleting the node group (40%)", requeue: true, opRecorded: true},
		{name: "succeeded", provider: stubProvider{status: sdk.OperationStatus{State: sdk.Succeeded}},
			phase: v1.PhaseTearingDown, says: "cloud resources deleted", opRecorded: true, gone: true},
		{name: "succeeded with what is left", provider: stubProvider{status: sdk.OperationStatus{State: sdk.Succeeded,
			Message: "destroyed; NOT deleted, delete by hand: volume vol-1 (in use)"}},
			phase: v1.PhaseTearingDown, says: "testcloud: destroyed; NOT deleted, delete by hand: volume vol-1 (in use); removing", opRecorded: true, gone: true},
		{name: "failed", provider: stubProvider{status: sdk.OperationStatus{State: sdk.Failed, Message: "VPC in use", ErrorClass: sdk.UserFixable}},
			phase: v1.PhaseFailed, says: "teardown failed: testcloud (USER_FIXABLE): VPC in use; fix the cause, then request the teardown again", failedMark: true},
		{name: "plugin down is retried", provider: stubProvider{destroyErr: sdk.Unavailable("plugin restarting")},
			phase: v1.PhaseTearingDown, says: "tearing down: testcloud: Destroy failed: plugin restarting; retrying at", requeue: true},
		{name: "credential gone", provider: stubProvider{}, creds: sdk.NotFound("no credential"),
			phase: v1.PhaseFailed, says: "cloud credential cred-1", failedMark: true},
		{name: "connected cluster", provider: stubProvider{}, connected: true,
			phase: v1.PhaseFailed, says: "disconnect it instead", failedMark: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc := provisioned("td")
			hc.Spec.Provisioning.Plugin = "testcloud"
			if c.connected {
				hc.Spec.Provisioning = nil
			}
			hc.Annotations = map[string]string{v1.TeardownAnnotation: "req-1"}
			hc.Finalizers = []string{Finalizer}
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
			p := c.provider
			r := &Reconciler{Client: cl, Recorder: record.NewFakeRecorder(10), Providers: stubProviders{&p},
				Credentials: stubCredentials{c.creds}, PollInterval: 10 * time.Second}
			key := client.ObjectKeyFromObject(hc)
			res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
			if err != nil {
				t.Fatal(err)
			}
			stored := &v1.HostCluster{}
			if err := cl.Get(ctx, key, stored); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %s", stored.Status.Phase, stored.Status.Message)
			if stored.Status.Phase != c.phase || !strings.Contains(stored.Status.Message, c.says) || (res.RequeueAfter > 0) != c.requeue {
				t.Errorf("phase %s, message %q, requeue %v; want %s, %q, requeue %v", stored.Status.Phase, stored.Status.Message, res.RequeueAfter, c.phase, c.says, c.requeue)
			}
			if got := stored.Annotations[v1.DestroyOperationAnnotation] != ""; got != c.opRecorded {
				t.Errorf("destroy operation recorded %v, want %v", got, c.opRecorded)
			}
			if got := stored.Annotations[v1.TeardownFailedAnnotation] == "req-1"; got != c.failedMark {
				t.Errorf("request marked failed %v, want %v", got, c.failedMark)
			}
			if got := !stored.DeletionTimestamp.IsZero(); got != c.gone {
				t.Errorf("HostCluster deleted %v, want %v", got, c.gone)
			}
			if c.gone && !meta.IsStatusConditionTrue(stored.Status.Conditions, v1.ConditionTornDown) {
				t.Errorf("deleted without TornDown recorded first: %+v", stored.Status.Conditions)
			}
			if c.failedMark {
				again, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: key})
				if err != nil || again.RequeueAfter != 0 || p.destroys > 1 {
					t.Errorf("a failed request ran again: requeue %v, %d Destroy calls", again.RequeueAfter, p.destroys)
				}
			}
		})
	}
	_ = metav1.Now
}
