package controller

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// provisioner answers Provision, Status and Kubeconfig as told.
type provisioner struct {
	sdk.Provider
	provisionErr error
	status       sdk.OperationStatus
	statusErr    error
}

func (p *provisioner) Provision(context.Context, sdk.ProvisionRequest) (sdk.Operation, error) {
	return sdk.Operation{ID: "op-1"}, p.provisionErr
}

func (p *provisioner) Status(context.Context, sdk.StatusRequest) (sdk.OperationStatus, error) {
	return p.status, p.statusErr
}

func (p *provisioner) Kubeconfig(context.Context, sdk.KubeconfigRequest) (sdk.Kubeconfig, error) {
	return sdk.Kubeconfig{Data: []byte("apiVersion: v1\nkind: Config\n")}, nil
}

type provisioners struct {
	p   *provisioner
	err error
}

func (s provisioners) Provider(string) (sdk.Provider, error) { return s.p, s.err }

func kind(err error) string {
	var w *step.Waiting
	var s *step.Stalled
	switch {
	case err == nil:
		return "done"
	case errors.As(err, &s):
		return "stalled:" + s.Reason
	case errors.As(err, &w):
		return "waiting:" + w.Reason
	}
	return "error"
}

// The provisioning step, one reconcile each, with a fake management
// client and a stub plugin: what it returns, the phase that follows and
// what it records.
func TestProvisionStep(t *testing.T) {
	cases := []struct {
		name       string
		provider   provisioner
		noProvider bool
		creds      error
		want       string
		phase      v1.Phase
		says       string
		opRecorded bool
		stored     bool
	}{
		{name: "running is waited for", provider: provisioner{status: sdk.OperationStatus{State: sdk.Running, Progress: 40, Message: "creating machines"}},
			want: "waiting:" + v1.ReasonWaiting, phase: v1.PhaseProvisioning, says: "testcloud: creating machines (40%)", opRecorded: true},
		{name: "succeeded stores the kubeconfig", provider: provisioner{status: sdk.OperationStatus{State: sdk.Succeeded}},
			want: "done", phase: v1.PhaseBootstrappingFlux, opRecorded: true, stored: true},
		{name: "failed stalls with the plugin's class", provider: provisioner{status: sdk.OperationStatus{State: sdk.Failed, Message: "quota exceeded", ErrorClass: sdk.UserFixable}},
			want: "stalled:" + v1.ReasonProvisioningFailed, phase: v1.PhaseFailed, says: "testcloud (USER_FIXABLE): quota exceeded", opRecorded: true},
		{name: "a RETRYABLE failure is started again by the controller", provider: provisioner{status: sdk.OperationStatus{State: sdk.Failed, Message: "throttled", ErrorClass: sdk.Retryable}},
			want: "waiting:" + v1.ReasonRetrying, phase: v1.PhaseProvisioning, says: "testcloud (RETRYABLE): throttled; retrying automatically in 30s (1 of 3)"},
		{name: "a TERMINAL failure stalls for good", provider: provisioner{status: sdk.OperationStatus{State: sdk.Failed, Message: "region retired", ErrorClass: sdk.Terminal}},
			want: "stalled:" + v1.ReasonProvisioningTerminal, phase: v1.PhaseFailed, says: "tear the cluster down and create it again", opRecorded: true},
		{name: "a plugin that is down is retried", provider: provisioner{provisionErr: sdk.Unavailable("plugin restarting")},
			want: "waiting:" + v1.ReasonRetrying, phase: v1.PhaseProvisioning, says: "testcloud: Provision failed: "},
		{name: "a panic in Status is retried", provider: provisioner{statusErr: &sdk.Error{Kind: sdk.KindInternal, Message: "plugin panicked in Status: boom"}},
			want: "waiting:" + v1.ReasonRetrying, phase: v1.PhaseProvisioning, says: "testcloud: Status failed: plugin panicked in Status: boom", opRecorded: true},
		{name: "an unreadable credential is retried", creds: errors.New("database is locked"),
			want: "waiting:" + v1.ReasonRetrying, phase: v1.PhasePending, says: "cloud credential cred-1 cannot be read yet: database is locked"},
		{name: "a missing credential stalls", creds: sdk.NotFound("no credential cred-1"),
			want: "stalled:" + v1.ReasonCredentialMissing, phase: v1.PhaseFailed, says: "add it again or pick another"},
		{name: "no such plugin stalls", noProvider: true,
			want: "stalled:" + v1.ReasonNoSuchProvider, phase: v1.PhaseFailed, says: "install that plugin or pick another"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc := provisioned("p1")
			hc.Finalizers = []string{Finalizer}
			cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
			if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
				t.Fatal(err)
			}
			p := c.provider
			var provErr error
			if c.noProvider {
				provErr = errors.New(`no provider plugin "testcloud"`)
			}
			r := &Reconciler{Client: cl, Providers: provisioners{&p, provErr}, Credentials: stubCredentials{c.creds}, PollInterval: 10 * time.Second}
			kc, err := r.provision(ctx, &pass{hc: hc})
			step.Report(hc, err, r.PollInterval, time.Now())
			t.Logf("%s: %s", v1.DerivePhase(hc), hc.Status.Message)
			if got := kind(err); got != c.want || v1.DerivePhase(hc) != c.phase {
				t.Errorf("result %s (%v), phase %s; want %s, %s", got, err, v1.DerivePhase(hc), c.want, c.phase)
			}
			if !strings.Contains(hc.Status.Message, c.says) {
				t.Errorf("message %q, want it to say %q", hc.Status.Message, c.says)
			}
			if got := hc.Annotations[OperationAnnotation] != ""; got != c.opRecorded {
				t.Errorf("operation recorded %v, want %v", got, c.opRecorded)
			}
			var s corev1.Secret
			stored := cl.Get(ctx, client.ObjectKey{Namespace: v1.Namespace, Name: v1.KubeconfigSecretName("p1")}, &s) == nil
			if stored != c.stored || (kc != nil) != c.stored || meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionProvisioned) != c.stored {
				t.Errorf("kubeconfig stored %v, returned %v, Provisioned %+v; want %v", stored, kc != nil,
					meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionProvisioned), c.stored)
			}
		})
	}
}

// Automatic retries of a RETRYABLE failure stop at the cap: the cluster
// is then Failed and says a person must retry; each retry forgot the
// operation so the next reconcile starts a new one.
func TestRetryableFailuresStopAtTheCap(t *testing.T) {
	ctx := context.Background()
	hc := provisioned("p2")
	hc.Finalizers = []string{Finalizer}
	cl := fake.NewClientBuilder().WithScheme(scheme).WithObjects(hc).WithStatusSubresource(hc).Build()
	if err := cl.Get(ctx, client.ObjectKeyFromObject(hc), hc); err != nil {
		t.Fatal(err)
	}
	p := provisioner{status: sdk.OperationStatus{State: sdk.Failed, Message: "throttled", ErrorClass: sdk.Retryable}}
	r := &Reconciler{Client: cl, Providers: provisioners{&p, nil}, Credentials: stubCredentials{}, PollInterval: time.Second}
	for i := 1; i <= maxAutoRetries; i++ {
		_, err := r.provision(ctx, &pass{hc: hc})
		if kind(err) != "waiting:"+v1.ReasonRetrying || hc.Annotations[OperationAnnotation] != "" {
			t.Fatalf("failure %d: %s, operation %q; want an automatic retry with the operation forgotten", i, kind(err), hc.Annotations[OperationAnnotation])
		}
	}
	_, err := r.provision(ctx, &pass{hc: hc})
	step.Report(hc, err, r.PollInterval, time.Now())
	if kind(err) != "stalled:"+v1.ReasonProvisioningFailed || v1.DerivePhase(hc) != v1.PhaseFailed ||
		!strings.Contains(hc.Status.Message, "after 3 automatic retries") {
		t.Errorf("past the cap: %s, phase %s, %q; want Failed saying the retries are used up", kind(err), v1.DerivePhase(hc), hc.Status.Message)
	}
}
