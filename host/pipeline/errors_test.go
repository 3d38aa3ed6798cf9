package pipeline

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// runUntilSettled calls Run as the controller would, recording its
// outcome with step.Report and deriving the phase, until the cluster is
// Ready or Failed.
func runUntilSettled(t *testing.T, p *Pipeline, hc *v1.HostCluster, kubeconfig []byte, within time.Duration) (v1.Phase, string) {
	t.Helper()
	hc.SetCondition(v1.ConditionAccessValidated, metav1.ConditionTrue, v1.ReasonReachable, "test")
	deadline := time.Now().Add(within)
	for {
		msg, err := p.Run(context.Background(), hc, kubeconfig)
		if err == nil {
			hc.Status.Message = msg
			hc.SetCondition(v1.ConditionReady, metav1.ConditionTrue, v1.ReasonPipelineDone, msg)
		}
		step.Report(hc, err, 250*time.Millisecond, time.Now())
		phase := v1.DerivePhase(hc)
		hc.Status.Phase = phase
		if phase == v1.PhaseReady || phase == v1.PhaseFailed {
			t.Logf("%s: %s: %s", hc.Name, phase, hc.Status.Message)
			return phase, hc.Status.Message
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still %s after %s: %s", hc.Name, phase, within, hc.Status.Message)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Each way the pipeline can fail ends in Failed with a message that says
// what went wrong and what to fix, and never a secret.
func TestFailuresSayWhatToFix(t *testing.T) {
	f := newFixture(t)
	kc := f.target.Kubeconfig
	// Flux is on the target already (each cluster below upgrades it).
	if _, err := fluxinstall.Install(context.Background(), f.target.Config, fluxinstall.Options{
		Chart: fluxinstall.Chart{RepoURL: f.chart.URL}, ReleaseName: FluxRelease}); err != nil {
		t.Fatal(err)
	}
	f.startFlux(t)

	t.Run("unreachable chart repository", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String()
		ln.Close()
		phase, msg := runUntilSettled(t, f.pipeline(closed), f.hostCluster("nochart", "clusters/nochart", "git-creds"), kc, time.Minute)
		if phase != v1.PhaseFailed || !strings.Contains(msg, closed) || !strings.Contains(msg, "unreachable") {
			t.Errorf("%s: %q", phase, msg)
		}
	})

	p := f.pipeline(f.chart.URL)
	t.Run("wrong git credential", func(t *testing.T) {
		phase, msg := runUntilSettled(t, p, f.hostCluster("badcred", "clusters/badcred", "git-wrong"), kc, 3*time.Minute)
		if phase != v1.PhaseFailed || !strings.Contains(msg, "authentication") || strings.Contains(msg, "not-the-password") {
			t.Errorf("%s: %q", phase, msg)
		}
	})

	t.Run("rejected push", func(t *testing.T) {
		guarded := gitserver.Start(t, gitserver.Options{Username: "kubeopera", Password: gitPassword})
		hc := f.hostCluster("rejected", "clusters/rejected", "git-creds")
		hc.Spec.GitOpsRepoURL = guarded.CreateRepo(t, "guarded")
		guarded.RejectPushes("main is protected: open a merge request")
		phase, msg := runUntilSettled(t, p, hc, kc, 3*time.Minute)
		if phase != v1.PhaseFailed || !strings.Contains(msg, "rejected") || !strings.Contains(msg, "main is protected") {
			t.Errorf("%s: %q", phase, msg)
		}
	})

	t.Run("no admin asked for", func(t *testing.T) {
		hc := f.hostCluster("noadmin", "clusters/noadmin", "git-creds")
		hc.Spec.AdminEmail, hc.Spec.AdminUsername = "", ""
		phase, msg := runUntilSettled(t, p, hc, kc, 3*time.Minute)
		if phase != v1.PhaseReady || !strings.Contains(msg, "first admin not created: set adminEmail and adminUsername") ||
			hc.Status.AdminPasswordSecretRef != "" || len(f.installed.adminCalls()) != 0 {
			t.Errorf("%s: %q (password ref %q)", phase, msg, hc.Status.AdminPasswordSecretRef)
		}
	})

	t.Run("Flux cannot apply the tree", func(t *testing.T) {
		// An admission policy on the target refuses this cluster's
		// Deployments, as a customer's policy engine might.
		denyDeployments(t, f, "broken", "Deployments of cluster broken are refused by policy")
		phase, msg := runUntilSettled(t, p, f.hostCluster("broken", "clusters/broken", "git-creds"), kc, 4*time.Minute)
		if phase != v1.PhaseFailed || !strings.Contains(msg, "Kustomization") || !strings.Contains(msg, "refused by policy") {
			t.Errorf("%s: %q", phase, msg)
		}
	})
}

// Last, since it leaves Flux broken: a Flux controller that cannot run
// fails the cluster after FluxTimeout, naming the controller and why.
func TestFluxThatNeverBecomesAvailableFailsNamingTheController(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	p := f.pipeline(f.chart.URL)
	p.o.FluxTimeout = 3 * time.Second
	hc := f.hostCluster("noflux", "clusters/noflux", "git-creds")
	if _, err := p.Run(ctx, hc, f.target.Kubeconfig); !isWaiting(err) { // installs the chart
		t.Fatal(err)
	}
	for _, n := range []string{"w1", "w2"} { // no node takes a new pod
		patch := []byte(`{"spec":{"unschedulable":true}}`)
		if _, err := f.target.Client.CoreV1().Nodes().Patch(ctx, n, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err := f.target.Client.CoreV1().Pods(fluxsync.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{},
		metav1.ListOptions{LabelSelector: "app=source-controller"})
	if err != nil {
		t.Fatal(err)
	}
	phase, msg := runUntilSettled(t, p, hc, f.target.Kubeconfig, time.Minute)
	if phase != v1.PhaseFailed || !strings.Contains(msg, "source-controller") || !strings.Contains(msg, "unschedulable") {
		t.Errorf("%s: %q", phase, msg)
	}
}

func denyDeployments(t *testing.T, f *fixture, clusterID, message string) {
	t.Helper()
	ctx := context.Background()
	fail := admissionv1.Deny
	policy := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-" + clusterID},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{FailurePolicy: (*admissionv1.FailurePolicyType)(nil),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []admissionv1.Validation{{
				Expression: "!has(object.metadata.labels) || !('" + v1.ClusterIDLabel + "' in object.metadata.labels) || object.metadata.labels['" + v1.ClusterIDLabel + "'] != '" + clusterID + "'",
				Message:    message}}}}
	if err := f.targetC.Create(ctx, policy); err != nil {
		t.Fatal(err)
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "deny-" + clusterID},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
			ValidationActions: []admissionv1.ValidationAction{fail}}}
	if err := f.targetC.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
}

// isWaiting: err is nil or a *step.Waiting (the step goes on by itself).
func isWaiting(err error) bool {
	var w *step.Waiting
	return err == nil || errors.As(err, &w)
}
