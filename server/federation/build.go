package federation

import (
	"context"
	"fmt"

	"k8s.io/client-go/rest"
)

// Build asks every target at once (at most o.Concurrency at a time), each
// under its own o.Timeout, and returns one row per target in target order
// plus totals. It never waits for a cluster beyond its timeout, even when the
// Assessor ignores its context; such a cluster's row says "timed out after
// <Timeout>". If ctx ends first, clusters not yet answered are reported
// unreachable with ctx's error.
func Build(ctx context.Context, targets []Target, o Options) Overview {
	o = o.withDefaults(len(targets))
	type result struct {
		i   int
		row Row
	}
	// Buffered so no worker ever blocks on a collector that has moved on.
	results := make(chan result, len(targets))
	slots := make(chan struct{}, o.Concurrency)
	for i, t := range targets {
		go func() { results <- result{i, o.row(ctx, slots, t)} }()
	}
	rows := make([]Row, len(targets))
	for range targets {
		r := <-results
		rows[r.i] = r.row
	}
	return Overview{Summary: summarize(rows, o.Pricing.Currency), Clusters: rows}
}

// row assesses t once a slot is free and turns the outcome into its Row.
func (o Options) row(ctx context.Context, slots chan struct{}, t Target) Row {
	row := Row{ID: t.ID, Name: t.Name, Status: t.Status}
	if t.Status != "" && o.StatusBadge != nil {
		row.StatusBadge = o.StatusBadge(t.Status)
	}
	if err := ctx.Err(); err != nil {
		row.Error = context.Cause(ctx).Error()
		return row
	}
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		row.Error = context.Cause(ctx).Error()
		return row
	}
	rep, err := o.assess(ctx, t.Config)
	if err != nil {
		row.Error = Reason(err)
		return row
	}
	cost, unpriced := o.Pricing.MonthlyCost(rep.Nodes)
	row.Reachable = true
	row.Score, row.Badge = rep.Score, rep.Badge
	row.NodesReady, row.NodesTotal = rep.NodesReady, rep.NodesTotal
	row.CPUPercent, row.MemoryPercent = rep.CPUPercent, rep.MemoryPercent
	row.MonthlyCost, row.UnpricedNodes = cost, unpriced
	return row
}

// assess runs o.Assess under the per-cluster timeout and returns by the
// deadline whether or not the Assessor does; a late Assessor finishes in its
// own goroutine and its answer is dropped.
func (o Options) assess(parent context.Context, cfg *rest.Config) (Report, error) {
	ctx, cancel := context.WithTimeoutCause(parent, o.Timeout, fmt.Errorf("timed out after %s", o.Timeout))
	defer cancel()
	type outcome struct {
		rep Report
		err error
	}
	done := make(chan outcome, 1) // buffered: a late send must not block forever
	go func() {
		defer func() {
			// A panicking Assessor must not take the server down with it.
			if p := recover(); p != nil {
				done <- outcome{err: fmt.Errorf("assessor panicked: %v", p)}
			}
		}()
		rep, err := o.Assess(ctx, cfg)
		done <- outcome{rep, err}
	}()
	select {
	case out := <-done:
		if out.err != nil && ctx.Err() != nil {
			// The Assessor gave up because of the deadline; say so plainly
			// rather than with the client library's wording.
			return Report{}, context.Cause(ctx)
		}
		return out.rep, out.err
	case <-ctx.Done():
		return Report{}, context.Cause(ctx)
	}
}
