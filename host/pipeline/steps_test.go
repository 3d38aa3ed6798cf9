package pipeline

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxsync"
	"github.com/ochestra-tech/kubeopera/host/step"
	"github.com/ochestra-tech/kubeopera/internal/gitserver"
)

// stepKind names what a step returned: done, waiting, retrying,
// stalled:<reason> or error (a plain transient error).
func stepKind(err error) string {
	var w *step.Waiting
	var s *step.Stalled
	switch {
	case err == nil:
		return "done"
	case errors.As(err, &s):
		return "stalled:" + s.Reason
	case errors.As(err, &w) && w.Reason == v1.ReasonRetrying:
		return "retrying"
	case errors.As(err, &w):
		return "waiting"
	}
	return "error"
}

func anyMessage(conds []metav1.Condition, text string) bool {
	for _, c := range conds {
		if strings.Contains(c.Message, text) {
			return true
		}
	}
	return false
}

// stepCluster is a cluster of generation 1 whose step conditions before
// typ are done.
func stepCluster(upTo ...string) *v1.HostCluster {
	hc := adminCluster("c1")
	hc.Spec.Mode = v1.ModeConnectExisting
	hc.Spec.GitOpsRepoURL, hc.Spec.GitOpsPath = "http://127.0.0.1:1/fleet.git", "clusters/c1"
	for _, typ := range upTo {
		hc.SetCondition(typ, metav1.ConditionTrue, "Test", "done before")
	}
	return hc
}

// aged moves condition typ's transition back by d.
func aged(hc *v1.HostCluster, typ string, d time.Duration) {
	c := meta.FindStatusCondition(hc.Status.Conditions, typ)
	c.LastTransitionTime = metav1.NewTime(time.Now().Add(-d))
}

func fluxDeployment(name string, available bool) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: fluxsync.Namespace, Generation: 1,
		Labels: map[string]string{"app.kubernetes.io/part-of": "flux"}}}
	d.Status.ObservedGeneration = 1
	if available {
		d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, d.Status.ReadyReplicas = 1, 1, 1, 1
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}}
	}
	return d
}

// The Flux step with Flux already installed for this generation, or with
// a Secret it must copy first missing: available, waiting, stalled.
func TestBootstrapFluxStep(t *testing.T) {
	cases := []struct {
		name      string
		installed bool
		age       time.Duration // since FluxInstalled
		deps      []runtime.Object
		want      string
		healthy   bool
		says      string
	}{
		{name: "available controllers are done", installed: true, deps: []runtime.Object{fluxDeployment("source-controller", true)},
			want: "done", healthy: true},
		{name: "no controllers yet is waited for", installed: true, want: "waiting", says: "no Flux controller deployments"},
		{name: "controllers starting are waited for", installed: true, deps: []runtime.Object{fluxDeployment("source-controller", false)},
			want: "waiting", says: "source-controller: 0/1 replicas updated"},
		{name: "controllers not available past the timeout stall", installed: true, age: time.Hour,
			deps: []runtime.Object{fluxDeployment("source-controller", false)}, want: "stalled:" + v1.ReasonFluxUnavailable,
			says: "source-controller: 0/1 replicas updated"},
		{name: "a missing git credentials Secret stalls before the install", want: "stalled:" + v1.ReasonSecretMissing,
			says: "Secret kubeopera-system/git-creds named by the HostCluster does not exist: create it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New(Options{Management: fake.NewClientBuilder().WithScheme(mgmtScheme).Build(), FluxTimeout: time.Minute})
			hc := stepCluster(v1.ConditionAccessValidated)
			hc.Spec.GitCredentialsSecretRef = "git-creds"
			if c.installed {
				hc.SetCondition(v1.ConditionFluxInstalled, metav1.ConditionTrue, v1.ReasonInstalled, "test")
				aged(hc, v1.ConditionFluxInstalled, c.age)
			}
			tgt := &target{client: fake.NewClientBuilder().WithScheme(p.scheme).Build(), clientset: k8sfake.NewClientset(c.deps...)}
			err := p.bootstrapFlux(context.Background(), hc, tgt)
			if got := stepKind(err); got != c.want || hc.Status.FluxHealthy != c.healthy {
				t.Errorf("result %s (%v), healthy %v; want %s, healthy %v", got, err, hc.Status.FluxHealthy, c.want, c.healthy)
			}
			if c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
				t.Errorf("message %v, want it to say %q", err, c.says)
			}
			if c.healthy != meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionFluxReady) {
				t.Errorf("FluxReady %+v, want True only when available", meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionFluxReady))
			}
		})
	}
}

// The GitOps tree step: what the spec lacks stalls, a git server that
// cannot be reached is retried, a push records the revision.
func TestPushTreeStep(t *testing.T) {
	git := gitserver.Start(t, gitserver.Options{})
	good := git.CreateRepo(t, "fleet")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/fleet.git"
	ln.Close()
	cases := []struct {
		name   string
		change func(hc *v1.HostCluster)
		want   string
		says   string
		pushed bool
	}{
		{name: "pushed", change: func(hc *v1.HostCluster) { hc.Spec.GitOpsRepoURL = good }, want: "done", pushed: true},
		{name: "already pushed for this generation is not pushed again", change: func(hc *v1.HostCluster) {
			hc.Status.GitOpsRevision = "abc"
			hc.SetCondition(v1.ConditionGitOpsPushed, metav1.ConditionTrue, v1.ReasonPushed, "before")
		}, want: "done", pushed: true},
		{name: "no repository stalls", change: func(hc *v1.HostCluster) { hc.Spec.GitOpsRepoURL = "" },
			want: "stalled:" + v1.ReasonGitOpsInvalid, says: "set gitOpsRepoURL"},
		{name: "a missing git credentials Secret stalls", change: func(hc *v1.HostCluster) { hc.Spec.GitCredentialsSecretRef = "nope" },
			want: "stalled:" + v1.ReasonSecretMissing, says: "Secret kubeopera-system/nope"},
		{name: "an unreachable git server is retried", change: func(hc *v1.HostCluster) { hc.Spec.GitOpsRepoURL = closed },
			want: "retrying", says: "cannot reach"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New(Options{Management: fake.NewClientBuilder().WithScheme(mgmtScheme).Build()})
			hc := stepCluster(v1.ConditionAccessValidated, v1.ConditionFluxReady)
			hc.Spec.Domain = "c1.example.com"
			c.change(hc)
			tgt := &target{client: fake.NewClientBuilder().WithScheme(p.scheme).Build()}
			err := p.pushTree(context.Background(), hc, tgt)
			if got := stepKind(err); got != c.want {
				t.Errorf("result %s (%v), want %s", got, err, c.want)
			}
			if c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
				t.Errorf("message %v, want it to say %q", err, c.says)
			}
			pushed := meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionGitOpsPushed) && hc.Status.GitOpsRevision != ""
			if pushed != c.pushed || v1.DerivePhase(hc) == v1.PhaseGeneratingGitOpsTree == c.pushed {
				t.Errorf("pushed %v (revision %q), phase %s; want pushed %v", pushed, hc.Status.GitOpsRevision, v1.DerivePhase(hc), c.pushed)
			}
		})
	}
}

const commit = "0123456789abcdef0123456789abcdef01234567"

func kustomization(name string, ready metav1.ConditionStatus, reason, revision string) *kustomizev1.Kustomization {
	k := &kustomizev1.Kustomization{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: fluxsync.Namespace}}
	k.Status.Conditions = []metav1.Condition{{Type: fluxmeta.ReadyCondition, Status: ready, Reason: reason, Message: reason + " at " + revision,
		LastTransitionTime: metav1.Now()}}
	k.Status.LastAppliedRevision, k.Status.LastAttemptedRevision = revision, revision
	if ready != metav1.ConditionTrue {
		k.Status.LastAppliedRevision = ""
	}
	return k
}

// The install step once Flux points at the tree: Flux's Ready is done, its
// progress waited for, its failure or the apply timeout stalls.
func TestInstallKubeOperaStep(t *testing.T) {
	at := "main@sha1:" + commit
	cases := []struct {
		name string
		apps *kustomizev1.Kustomization
		age  time.Duration
		want string
		says string
	}{
		{name: "applied is done", apps: kustomization(fluxsync.AppsName("c1"), metav1.ConditionTrue, fluxmeta.ReconciliationSucceededReason, at),
			want: "done"},
		{name: "progressing is waited for", apps: kustomization(fluxsync.AppsName("c1"), metav1.ConditionFalse, fluxmeta.ProgressingReason, at),
			want: "waiting", says: "waiting for Flux to apply 0123456789ab"},
		{name: "progressing past the timeout stalls", age: time.Hour,
			apps: kustomization(fluxsync.AppsName("c1"), metav1.ConditionFalse, fluxmeta.ProgressingReason, at),
			want: "stalled:" + v1.ReasonApplyFailed, says: "Flux has not applied 0123456789ab after 1h0m0s"},
		{name: "Flux's failure stalls at once", apps: kustomization(fluxsync.AppsName("c1"), metav1.ConditionFalse, "ReconciliationFailed", at),
			want: "stalled:" + v1.ReasonApplyFailed, says: "Flux could not apply the GitOps tree: Kustomization flux-system/kubeopera-c1-apps: ReconciliationFailed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New(Options{ApplyTimeout: time.Minute})
			hc := stepCluster(v1.ConditionAccessValidated, v1.ConditionFluxReady, v1.ConditionGitOpsPushed)
			hc.Status.GitOpsRevision = commit
			hc.SetCondition(v1.ConditionKubeOperaInstalled, metav1.ConditionFalse, v1.ReasonApplying, "Flux is applying")
			aged(hc, v1.ConditionKubeOperaInstalled, c.age)
			repo := &sourcev1.GitRepository{ObjectMeta: metav1.ObjectMeta{Name: fluxsync.GitRepositoryName("c1"), Namespace: fluxsync.Namespace}}
			infra := kustomization(fluxsync.InfrastructureName("c1"), metav1.ConditionTrue, fluxmeta.ReconciliationSucceededReason, at)
			tc := fake.NewClientBuilder().WithScheme(p.scheme).WithObjects(repo, infra, c.apps).Build()
			err := p.installKubeOpera(context.Background(), hc, &target{client: tc})
			if got := stepKind(err); got != c.want {
				t.Errorf("result %s (%v), want %s", got, err, c.want)
			}
			if c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)) {
				t.Errorf("message %v, want it to say %q", err, c.says)
			}
			if done := meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionKubeOperaInstalled); done != (c.want == "done") {
				t.Errorf("KubeOperaInstalled True %v, want %v", done, c.want == "done")
			}
		})
	}
}

// The install step's first call for a spec points Flux at the pushed tree
// (the GitRepository and both Kustomizations, a fetch requested) and waits.
func TestInstallKubeOperaPointsFluxAtTheTree(t *testing.T) {
	ctx := context.Background()
	p := New(Options{ApplyTimeout: time.Minute})
	hc := stepCluster(v1.ConditionAccessValidated, v1.ConditionFluxReady, v1.ConditionGitOpsPushed)
	hc.Status.GitOpsRevision = commit
	tc := fake.NewClientBuilder().WithScheme(p.scheme).Build()
	err := p.installKubeOpera(ctx, hc, &target{client: tc})
	if got := stepKind(err); got != "waiting" || !strings.Contains(err.Error(), "waiting for Flux to apply 0123456789ab") {
		t.Errorf("result %s: %v; want waiting for Flux", got, err)
	}
	c := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionKubeOperaInstalled)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != v1.ReasonApplying {
		t.Errorf("KubeOperaInstalled %+v, want False/Applying", c)
	}
	var repo sourcev1.GitRepository
	if err := tc.Get(ctx, client.ObjectKey{Namespace: fluxsync.Namespace, Name: fluxsync.GitRepositoryName("c1")}, &repo); err != nil ||
		repo.Spec.URL != hc.Spec.GitOpsRepoURL || repo.Annotations[fluxmeta.ReconcileRequestAnnotation] == "" {
		t.Errorf("GitRepository %s (err %v), annotations %v; want the tree's URL and a fetch requested", repo.Spec.URL, err, repo.Annotations)
	}
	for _, name := range []string{fluxsync.InfrastructureName("c1"), fluxsync.AppsName("c1")} {
		if err := tc.Get(ctx, client.ObjectKey{Namespace: fluxsync.Namespace, Name: name}, &kustomizev1.Kustomization{}); err != nil {
			t.Errorf("Kustomization %s: %v", name, err)
		}
	}
}

// Run with a kubeconfig that cannot work stalls saying so, and runs no
// step.
func TestRunWithABadKubeconfigStalls(t *testing.T) {
	p := New(Options{})
	hc := stepCluster(v1.ConditionAccessValidated)
	_, err := p.Run(context.Background(), hc, []byte("not: [a kubeconfig"))
	if got := stepKind(err); got != "stalled:"+v1.ReasonInvalidKubeconfig || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("result %s: %v", got, err)
	}
	if len(hc.Status.Conditions) != 1 {
		t.Errorf("conditions recorded by a run that reached nothing: %+v", hc.Status.Conditions)
	}
}
