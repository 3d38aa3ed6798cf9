package controller

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/step"
)

func kubeconfigFor(url string) []byte {
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, url))
}

// The access step, one reconcile each, against a stand-in API server:
// answered, refused, unusable, or retried until the window ends.
func TestValidateAccessStep(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer api.Close()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer refusing.Close()
	cases := []struct {
		name       string
		kubeconfig []byte // nil: no Secret
		failingFor time.Duration
		want       string
		phase      v1.Phase
		says       string
	}{
		{name: "answered", kubeconfig: kubeconfigFor(api.URL), want: "done", phase: v1.PhaseBootstrappingFlux,
			says: "API server " + api.URL + " answered (Kubernetes v1.37.2)"},
		{name: "refused credentials stall", kubeconfig: kubeconfigFor(refusing.URL),
			want: "stalled:" + v1.ReasonAccessRefused, phase: v1.PhaseFailed, says: "the server has asked for the client to provide credentials"},
		{name: "an unusable kubeconfig stalls", kubeconfig: []byte("not: [yaml"), want: "stalled:" + v1.ReasonInvalidKubeconfig,
			phase: v1.PhaseFailed, says: "kubeconfig Secret hostcluster-a1-kubeconfig"},
		{name: "a missing Secret is retried in the window", want: "waiting:" + v1.ReasonRetrying, phase: v1.PhaseValidatingAccess,
			says: "kubeconfig Secret hostcluster-a1-kubeconfig: secrets \"hostcluster-a1-kubeconfig\" not found; retried for up to 5m0s more; retrying at"},
		{name: "past the window it stalls with the error", failingFor: 10 * time.Minute, want: "stalled:" + v1.ReasonUnreachable,
			phase: v1.PhaseFailed, says: "gave up after 5m0s: kubeconfig Secret hostcluster-a1-kubeconfig"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			hc, kc := reachable()
			hc.Name, hc.Status = "a1", v1.HostClusterStatus{}
			hc.Spec.ConnectKubeconfigSecretRef.Name, kc.Name = v1.KubeconfigSecretName("a1"), v1.KubeconfigSecretName("a1")
			kc.Data[v1.KubeconfigSecretKey] = c.kubeconfig
			b := fake.NewClientBuilder().WithScheme(scheme)
			if c.kubeconfig != nil {
				b = b.WithObjects(kc)
			}
			if c.failingFor > 0 {
				hc.SetCondition(v1.ConditionAccessValidated, metav1.ConditionFalse, v1.ReasonUnreachable, "earlier")
				meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionAccessValidated).LastTransitionTime = metav1.NewTime(time.Now().Add(-c.failingFor))
			}
			r := &Reconciler{Client: b.Build(), AccessRetryWindow: 5 * time.Minute, PollInterval: time.Second}
			data, err := r.validateAccess(ctx, hc)
			step.Report(hc, err, r.PollInterval, time.Now())
			t.Logf("%s: %s", v1.DerivePhase(hc), hc.Status.Message)
			if got := kind(err); got != c.want || v1.DerivePhase(hc) != c.phase || (data != nil) != (c.want == "done") {
				t.Errorf("result %s (%v), phase %s, kubeconfig returned %v; want %s, %s", got, err, v1.DerivePhase(hc), data != nil, c.want, c.phase)
			}
			if !strings.Contains(hc.Status.Message, c.says) {
				t.Errorf("message %q, want it to say %q", hc.Status.Message, c.says)
			}
		})
	}
}

// A kubeconfig the cache still has unusable, fixed on the API server since
// (the reconcile the user's next spec change started can read the cache
// before it catches up): the fixed one is read past the cache and used, so
// the cluster is not failed with the old error.
func TestValidateAccessRereadsAnUnusableKubeconfigPastTheCache(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer api.Close()
	hc, kc := reachable()
	hc.Name, hc.Status = "a1", v1.HostClusterStatus{}
	hc.Spec.ConnectKubeconfigSecretRef.Name, kc.Name = v1.KubeconfigSecretName("a1"), v1.KubeconfigSecretName("a1")
	stale, fresh := kc.DeepCopy(), kc.DeepCopy()
	stale.Data[v1.KubeconfigSecretKey] = []byte("not: [yaml")
	fresh.Data[v1.KubeconfigSecretKey] = kubeconfigFor(api.URL)
	r := &Reconciler{Client: fake.NewClientBuilder().WithScheme(scheme).WithObjects(stale).Build(),
		APIReader:         fake.NewClientBuilder().WithScheme(scheme).WithObjects(fresh).Build(),
		AccessRetryWindow: 5 * time.Minute, PollInterval: time.Second}
	data, err := r.validateAccess(context.Background(), hc)
	step.Report(hc, err, r.PollInterval, time.Now())
	if err != nil || string(data) != string(fresh.Data[v1.KubeconfigSecretKey]) || v1.DerivePhase(hc) != v1.PhaseBootstrappingFlux {
		t.Fatalf("got %v, phase %s (%s), kubeconfig from the API server: %v; want the fixed kubeconfig used",
			err, v1.DerivePhase(hc), hc.Status.Message, string(data) == string(fresh.Data[v1.KubeconfigSecretKey]))
	}
	// And one unusable on the API server too still fails the cluster.
	r.APIReader = fake.NewClientBuilder().WithScheme(scheme).WithObjects(stale.DeepCopy()).Build()
	hc.Status = v1.HostClusterStatus{}
	_, err = r.validateAccess(context.Background(), hc)
	step.Report(hc, err, r.PollInterval, time.Now())
	if kind(err) != "stalled:"+v1.ReasonInvalidKubeconfig || v1.DerivePhase(hc) != v1.PhaseFailed {
		t.Fatalf("unusable in both: %s, phase %s; want stalled:%s, Failed", kind(err), v1.DerivePhase(hc), v1.ReasonInvalidKubeconfig)
	}
}
