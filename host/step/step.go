// Package step is the vocabulary every HostCluster step reports in, after
// Flux's Waiting and Stalling errors: a step returns nil when it is done,
// a *Waiting when it waits or hit a transient error (retried after a
// delay), a *Stalled when the user must act, ErrDone when the reconcile has
// nothing more to do this time, or any other error, which is transient
// too. Report turns that into status in one place, so every message says
// what is retried and when, or what to fix. Later collects the timed
// wake-ups a reconcile's steps ask for: the only way a step schedules one.
package step

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// Waiting: the step cannot finish yet but will by itself; it is run again
// after After (the caller's poll interval when zero).
type Waiting struct {
	// Reason is v1.ReasonWaiting (progress awaited) or v1.ReasonRetrying
	// (a transient error).
	Reason string
	// Message says what is awaited or what failed, without the time.
	Message string
	After   time.Duration
}

func (e *Waiting) Error() string { return e.Message }

// Stalled: the step cannot go on until the user acts; the message says
// what to fix. It is not retried until the spec changes.
type Stalled struct {
	// Reason is one of the v1 reasons, naming what failed.
	Reason  string
	Message string
}

func (e *Stalled) Error() string { return e.Message }

// ErrDone ends a reconcile's steps with nothing more to do this time: the
// steps after it do not run, and Report records nothing.
var ErrDone = errors.New("nothing more to do in this reconcile")

// Later is the soonest of the timed wake-ups one reconcile's steps asked
// for; the zero value asks for none.
type Later struct{ after time.Duration }

// In asks to run again within after (0 or less: no wish).
func (l *Later) In(after time.Duration) {
	if after > 0 && (l.after == 0 || after < l.after) {
		l.after = after
	}
}

// After is the soonest wake-up asked for (0: none).
func (l *Later) After() time.Duration { return l.after }

// Wait reports progress awaited: checked again after after (0: the poll
// interval).
func Wait(after time.Duration, format string, args ...any) error {
	return &Waiting{Reason: v1.ReasonWaiting, Message: fmt.Sprintf(format, args...), After: after}
}

// Retry reports a transient error: retried after after (0: the poll
// interval).
func Retry(after time.Duration, format string, args ...any) error {
	return &Waiting{Reason: v1.ReasonRetrying, Message: fmt.Sprintf(format, args...), After: after}
}

// Stall reports that the user must act; reason is a v1 reason constant.
func Stall(reason, format string, args ...any) error {
	return &Stalled{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// Report records what a step's err says on hc (status.message, the Ready
// and Stalled conditions) and returns when to run again (0: not until
// something changes). A nil err, or ErrDone, records nothing. now is the time the
// message's retry time is counted from.
func Report(hc *v1.HostCluster, err error, poll time.Duration, now time.Time) time.Duration {
	if err == nil || errors.Is(err, ErrDone) {
		return 0
	}
	var stalled *Stalled
	if errors.As(err, &stalled) {
		hc.Status.Message = stalled.Message
		hc.SetCondition(v1.ConditionStalled, metav1.ConditionTrue, stalled.Reason, stalled.Message)
		hc.SetCondition(v1.ConditionReady, metav1.ConditionFalse, stalled.Reason, stalled.Message)
		return 0
	}
	meta.RemoveStatusCondition(&hc.Status.Conditions, v1.ConditionStalled) // not stalled: it goes on
	var waiting *Waiting
	if !errors.As(err, &waiting) {
		waiting = &Waiting{Reason: v1.ReasonRetrying,
			Message: fmt.Sprintf("%s hit an error: %v", v1.DerivePhase(hc), err)}
	}
	after := waiting.After
	if after <= 0 {
		after = poll
	}
	after = max(after, 100*time.Millisecond)
	verb := "checked again"
	if waiting.Reason == v1.ReasonRetrying {
		verb = "retrying"
	}
	hc.Status.Message = fmt.Sprintf("%s; %s at %s UTC (in %s)", waiting.Message, verb,
		now.Add(after).UTC().Format(time.TimeOnly), roughly(after))
	hc.SetCondition(v1.ConditionReady, metav1.ConditionFalse, waiting.Reason, hc.Status.Message)
	return after
}

// roughly is d as a person reads it: whole seconds from a second on,
// milliseconds below.
func roughly(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}
