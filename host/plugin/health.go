package plugin

import (
	"fmt"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
)

// Health says whether a plugin answers as it should.
type Health string

// The health of a plugin.
const (
	// Healthy plugins answered their last call.
	Healthy Health = "ok"
	// Degraded plugins failed Options.DegradedAfter times in a row
	// (crashes, panics, internal errors); calls are refused until their
	// backoff has passed, then one is let through to try again.
	Degraded Health = "degraded"
)

// Healths lists every Health.
var Healths = []Health{Healthy, Degraded}

// failed records a failure with its reason; the caller holds i.mu.
func (i *instance) failed(reason string) {
	i.failures++
	i.failing.Store(int32(i.failures))
	i.lastReason = reason
	i.lastFailure = time.Now()
	if i.failures >= i.host.opts.DegradedAfter {
		n := i.failures - i.host.opts.DegradedAfter + 1
		wait := i.host.opts.MinBackoff << (n - 1)
		if wait > i.host.opts.MaxBackoff || wait <= 0 {
			wait = i.host.opts.MaxBackoff
		}
		i.degradedUntil = time.Now().Add(wait)
		i.log.Warn("provider "+i.cand.Name+" is degraded", "failures", i.failures, "last", reason, "retry_in", wait.String())
	}
}

// observe counts the outcome of a call: an internal error (a panic in the
// plugin, say) is a failure; an answer, even a typed error, is a success.
// Crashes are counted when the process exits.
func (i *instance) observe(err error) {
	if sdk.IsConnectionLost(err) {
		return
	}
	internal := sdk.KindOf(err) == sdk.KindInternal
	if !internal && i.failing.Load() == 0 {
		return // a success with nothing to reset
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if internal {
		i.failed(err.Error())
		return
	}
	i.failures = 0
	i.failing.Store(0)
}

// refuse returns an error while the plugin is degraded and backing off.
func (i *instance) refuse() error {
	if int(i.failing.Load()) < i.host.opts.DegradedAfter {
		return nil
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.failures < i.host.opts.DegradedAfter {
		return nil
	}
	until := i.degradedUntil
	if i.proc == nil && i.nextStart.After(until) {
		until = i.nextStart
	}
	if wait := time.Until(until); wait > 0 {
		return sdk.Unavailable("provider %s is degraded after %d failures in a row (last: %s); calls resume in %s",
			i.cand.Name, i.failures, i.lastReason, wait.Round(time.Second))
	}
	return nil
}

// health describes the plugin's health; the caller holds i.mu.
func (i *instance) health() (Health, string) {
	if i.failures >= i.host.opts.DegradedAfter {
		return Degraded, fmt.Sprintf("%d failures in a row, last at %s: %s",
			i.failures, i.lastFailure.UTC().Format(time.RFC3339), i.lastReason)
	}
	return Healthy, ""
}
