package fluxsync

import (
	"context"
	"errors"
	"strings"
	"testing"

	kustomizev1 "github.com/fluxcd/kustomize-controller/api/v1"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	sourcev1 "github.com/fluxcd/source-controller/api/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	shaOld = "0123456789abcdef0123456789abcdef01234567"
	shaNew = "89abcdef0123456789abcdef0123456789abcdef"
)

func TestRevisionNames(t *testing.T) {
	tests := []struct {
		revision, commit string
		want             bool
	}{
		{"main@sha1:" + shaNew, shaNew, true},
		{"refs/heads/main@sha1:" + shaNew, shaNew, true},
		{"main@sha1:" + shaNew, "89ABCDEF0123456789ABCDEF0123456789ABCDEF", true},
		{"main/" + shaNew, shaNew, true},
		{"main@sha1:" + shaOld, shaNew, false},
		{"main@sha1:" + shaNew, shaNew[:7], false},
		{"", shaNew, false},
		{"main@sha1:" + shaNew, "", false},
	}
	for _, tt := range tests {
		if got := revisionNames(tt.revision, tt.commit); got != tt.want {
			t.Errorf("revisionNames(%q, %q) = %v, want %v", tt.revision, tt.commit, got, tt.want)
		}
	}
}

func TestKustomizationFailureIsJudgedAtTheCommit(t *testing.T) {
	tests := []struct {
		name      string
		reason    string
		status    metav1.ConditionStatus
		attempted string
		stalled   bool
		want      bool
	}{
		{name: "build failure at the commit fails", reason: "BuildFailed", status: metav1.ConditionFalse, attempted: shaNew, want: true},
		{name: "apply failure at the commit fails", reason: "ReconciliationFailed", status: metav1.ConditionFalse, attempted: shaNew, want: true},
		{name: "health check failure at the commit fails", reason: "HealthCheckFailed", status: metav1.ConditionFalse, attempted: shaNew, want: true},
		{name: "prune failure at the commit fails", reason: "PruneFailed", status: metav1.ConditionFalse, attempted: shaNew, want: true},
		{name: "build failure at an older commit waits for the new one", reason: "BuildFailed", status: metav1.ConditionFalse, attempted: shaOld},
		{name: "a dependency not ready waits", reason: "DependencyNotReady", status: metav1.ConditionFalse, attempted: shaNew},
		{name: "no source artifact yet waits", reason: "ArtifactFailed", status: metav1.ConditionFalse},
		{name: "a retry in progress waits", reason: "ProgressingWithRetry", status: metav1.ConditionFalse, attempted: shaNew},
		{name: "a canceled health check waits", reason: "HealthCheckCanceled", status: metav1.ConditionFalse, attempted: shaNew},
		{name: "a reconciliation in progress waits", reason: "Progressing", status: metav1.ConditionUnknown, attempted: shaNew},
		{name: "a stalled Kustomization fails whatever the commit", reason: "AccessDenied", status: metav1.ConditionFalse, stalled: true, want: true},
		{name: "ready is no failure", reason: "ReconciliationSucceeded", status: metav1.ConditionTrue, attempted: shaNew},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := &kustomizev1.Kustomization{}
			k.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: tt.status, Reason: tt.reason, Message: "flux says"}}
			if tt.stalled {
				k.Status.Conditions = append(k.Status.Conditions, metav1.Condition{Type: "Stalled", Status: metav1.ConditionTrue, Reason: tt.reason})
			}
			if tt.attempted != "" {
				k.Status.LastAttemptedRevision = "main@sha1:" + tt.attempted
			}
			msg, failed := kustomizationFailure(k, newJudge(context.Background(), shaNew, nil))
			if failed != tt.want || (failed && msg != "flux says") {
				t.Errorf("failed = %v (message %q), want %v with Flux's message", failed, msg, tt.want)
			}
		})
	}
}

func TestGitRepositoryFailure(t *testing.T) {
	tests := []struct {
		reason string
		status metav1.ConditionStatus
		want   bool
	}{
		{"GitOperationFailed", metav1.ConditionFalse, true},
		{"AuthenticationFailed", metav1.ConditionFalse, true},
		{"Progressing", metav1.ConditionUnknown, false},
		{"ProgressingWithRetry", metav1.ConditionFalse, false},
		{"Succeeded", metav1.ConditionTrue, false},
	}
	for _, tt := range tests {
		r := &sourcev1.GitRepository{}
		r.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: tt.status, Reason: tt.reason, Message: "m"}}
		if _, failed := sourceFailure(r); failed != tt.want {
			t.Errorf("Ready=%s %s: failed = %v, want %v", tt.status, tt.reason, failed, tt.want)
		}
	}
}

func TestAppliedNeedsReadyCurrentGenerationAndTheCommit(t *testing.T) {
	ready := func(gen, observed int64, rev string) *kustomizev1.Kustomization {
		k := &kustomizev1.Kustomization{}
		k.Generation, k.Status.ObservedGeneration = gen, observed
		k.Status.LastAppliedRevision = rev
		k.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ReconciliationSucceeded"}}
		return k
	}
	if !kustomizationApplied(ready(2, 2, "main@sha1:"+shaNew), newJudge(context.Background(), shaNew, nil)) {
		t.Error("Ready at the commit for the current generation is not applied")
	}
	if kustomizationApplied(ready(2, 2, "main@sha1:"+shaOld), newJudge(context.Background(), shaNew, nil)) {
		t.Error("Ready at an older commit counts as applied")
	}
	if kustomizationApplied(ready(3, 2, "main@sha1:"+shaNew), newJudge(context.Background(), shaNew, nil)) {
		t.Error("Ready for an older spec counts as applied")
	}
}

// holdsOf answers as a repository in which shaNew descends from shaOld and
// shaOther does not exist, counting the questions.
func holdsOf(asked map[string]int) Holds {
	return func(_ context.Context, sha string) (bool, string, error) {
		asked[sha]++
		switch sha {
		case shaNew:
			return true, shaNew[:12] + " descends from " + shaOld[:12], nil
		case shaOther:
			return false, "", errors.New("git: cannot reach the repository")
		}
		return false, sha[:12] + " predates " + shaOld[:12], nil
	}
}

const shaOther = "fedcba9876543210fedcba9876543210fedcba98"

// A cluster pushed shaOld; others pushed on top of it, and Flux applied
// the newest commit.
func TestALaterRevisionThatHoldsTheCommitCounts(t *testing.T) {
	ready := func(rev string) *kustomizev1.Kustomization {
		k := &kustomizev1.Kustomization{}
		k.Status.LastAppliedRevision = "main@sha1:" + rev
		k.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ReconciliationSucceeded"}}
		return k
	}
	failed := func(rev string) *kustomizev1.Kustomization {
		k := &kustomizev1.Kustomization{}
		k.Status.LastAttemptedRevision = "main@sha1:" + rev
		k.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "BuildFailed", Message: "flux says"}}
		return k
	}
	tests := []struct {
		name    string
		holds   bool
		k       *kustomizev1.Kustomization
		applied bool
		failed  bool
		state   string
	}{
		{name: "applied at a descendant is applied", holds: true, k: ready(shaNew), applied: true,
			state: "Ready at main@sha1:" + shaNew + " (" + shaNew[:12] + " descends from " + shaOld[:12] + ")"},
		{name: "applied at the commit itself is applied", holds: true, k: ready(shaOld), applied: true, state: "Ready at main@sha1:" + shaOld},
		{name: "applied at an older commit is not", holds: true, k: ready("00" + shaOld[2:]),
			state: "(00" + shaOld[2:12] + " predates " + shaOld[:12] + ")"},
		{name: "without a judge a descendant is not applied", k: ready(shaNew), state: "Ready at main@sha1:" + shaNew},
		{name: "a repository that cannot be read says so and waits", holds: true, k: ready(shaOther),
			state: "cannot tell whether it holds " + shaOld[:12] + ": git: cannot reach the repository"},
		{name: "a failure at a descendant is a failure", holds: true, k: failed(shaNew), failed: true},
		{name: "a failure at an older commit waits", holds: true, k: failed("00" + shaOld[2:])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := map[string]int{}
			var h Holds
			if tt.holds {
				h = holdsOf(asked)
			}
			j := newJudge(context.Background(), shaOld, h)
			if got := kustomizationApplied(tt.k, j); got != tt.applied {
				t.Errorf("applied = %v, want %v", got, tt.applied)
			}
			if _, got := kustomizationFailure(tt.k, j); got != tt.failed {
				t.Errorf("failed = %v, want %v", got, tt.failed)
			}
			if tt.state != "" && !strings.Contains(kustomizationState(tt.k, j), tt.state) {
				t.Errorf("state %q, want it to contain %q", kustomizationState(tt.k, j), tt.state)
			}
			for sha, n := range asked {
				if n != 1 || strings.EqualFold(sha, shaOld) {
					t.Errorf("asked about %s %d times; want once, and never about the commit itself", sha, n)
				}
			}
		})
	}
}

func TestSourceStateSaysWhyAFetchedRevisionDoesNotHoldTheCommit(t *testing.T) {
	r := &sourcev1.GitRepository{}
	r.Status.Artifact = &fluxmeta.Artifact{Revision: "main@sha1:00" + shaOld[2:]}
	got := sourceState(r, newJudge(context.Background(), shaOld, holdsOf(map[string]int{})))
	want := "at main@sha1:00" + shaOld[2:] + " (00" + shaOld[2:12] + " predates " + shaOld[:12] + ")"
	if got != want {
		t.Errorf("sourceState = %q, want %q", got, want)
	}
	r.Status.Artifact.Revision = "main@sha1:" + shaNew
	if got := sourceState(r, newJudge(context.Background(), shaOld, holdsOf(map[string]int{}))); !strings.HasPrefix(got, "fetched main@sha1:"+shaNew+" (") {
		t.Errorf("sourceState of a descendant = %q, want fetched", got)
	}
}
