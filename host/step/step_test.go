package step

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// What each kind of step result leaves in status: the message (with when
// it is retried, or what to fix), Ready, Stalled, and the requeue.
func TestReport(t *testing.T) {
	now := time.Date(2026, 11, 30, 15, 4, 5, 0, time.UTC)
	cases := []struct {
		name        string
		err         error
		message     string
		readyReason string
		stalled     bool
		after       time.Duration
	}{
		{name: "done records nothing", err: nil, message: "old message"},
		{name: "progress says when it is checked again", err: Wait(0, "waiting for the Flux controllers: source-controller"),
			message:     "waiting for the Flux controllers: source-controller; checked again at 15:04:15 UTC (in 10s)",
			readyReason: v1.ReasonWaiting, after: 10 * time.Second},
		{name: "a transient error says when it is retried, at its own delay", err: Retry(3*time.Second, "git: cannot reach host"),
			message: "git: cannot reach host; retrying at 15:04:08 UTC (in 3s)", readyReason: v1.ReasonRetrying, after: 3 * time.Second},
		{name: "a plain error replaces the old message with itself and the retry", err: errors.New("create namespace: connection refused"),
			message:     "BootstrappingFlux hit an error: create namespace: connection refused; retrying at 15:04:15 UTC (in 10s)",
			readyReason: v1.ReasonRetrying, after: 10 * time.Second},
		{name: "a short delay is said in milliseconds", err: Wait(250*time.Millisecond, "waiting for Flux"),
			message: "waiting for Flux; checked again at 15:04:05 UTC (in 250ms)", readyReason: v1.ReasonWaiting, after: 250 * time.Millisecond},
		{name: "stalled says what to fix and is not requeued", err: Stall(v1.ReasonSecretMissing, "Secret x does not exist: create it"),
			message: "Secret x does not exist: create it", readyReason: v1.ReasonSecretMissing, stalled: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := &v1.HostCluster{Spec: v1.HostClusterSpec{Mode: v1.ModeConnectExisting}}
			hc.Status.Message = "old message"
			hc.SetCondition(v1.ConditionAccessValidated, metav1.ConditionTrue, v1.ReasonReachable, "ok")
			hc.SetCondition(v1.ConditionStalled, metav1.ConditionTrue, "Earlier", "an earlier stall")
			after := Report(hc, c.err, 10*time.Second, now)
			if hc.Status.Message != c.message || after != c.after {
				t.Errorf("message %q, after %s; want %q, %s", hc.Status.Message, after, c.message, c.after)
			}
			if c.err == nil {
				return
			}
			ready := meta.FindStatusCondition(hc.Status.Conditions, v1.ConditionReady)
			if ready == nil || ready.Status != metav1.ConditionFalse || ready.Reason != c.readyReason || !strings.Contains(ready.Message, c.message) {
				t.Errorf("Ready %+v, want False/%s", ready, c.readyReason)
			}
			if got := meta.IsStatusConditionTrue(hc.Status.Conditions, v1.ConditionStalled); got != c.stalled {
				t.Errorf("Stalled %v, want %v", got, c.stalled)
			}
			if want := map[bool]v1.Phase{true: v1.PhaseFailed, false: v1.PhaseBootstrappingFlux}[c.stalled]; v1.DerivePhase(hc) != want {
				t.Errorf("phase %s, want %s", v1.DerivePhase(hc), want)
			}
		})
	}
}

// ErrDone records nothing and asks for no wake-up; Later keeps the soonest
// wake-up asked for and ignores "no wish".
func TestDoneRecordsNothingAndLaterKeepsTheSoonest(t *testing.T) {
	hc := &v1.HostCluster{}
	hc.Status.Message = "as it was"
	if after := Report(hc, fmt.Errorf("teardown finished: %w", ErrDone), time.Second, time.Now()); after != 0 ||
		hc.Status.Message != "as it was" || len(hc.Status.Conditions) != 0 {
		t.Errorf("Report(ErrDone) = %s, message %q, conditions %v; want nothing recorded", after, hc.Status.Message, hc.Status.Conditions)
	}
	var l Later
	for _, d := range []time.Duration{0, 3 * time.Minute, -time.Second, 10 * time.Second, time.Minute} {
		l.In(d)
	}
	if l.After() != 10*time.Second {
		t.Errorf("Later.After() = %s, want the soonest, 10s", l.After())
	}
}
