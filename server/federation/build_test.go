package federation

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// scripted returns an Assessor that behaves according to cfg.Host:
// "ok" succeeds, "fail" errors, "hang" ignores ctx until the test ends (or
// 10s), "slow" honours ctx and fails with its error, like client-go does.
func scripted(t *testing.T) Assessor {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return func(ctx context.Context, cfg *rest.Config) (Report, error) {
		switch cfg.Host {
		case "ok":
			return Report{Score: 92, Badge: "green", NodesReady: 1, NodesTotal: 2, CPUPercent: 40, MemoryPercent: 55,
				Nodes: []corev1.Node{node("a", true, typed("m5.large")), node("b", false, typed("x9.huge"))}}, nil
		case "fail":
			return Report{}, errors.New("list nodes: connection refused")
		case "hang":
			select {
			case <-release:
			case <-time.After(10 * time.Second):
			}
			return Report{Badge: "green"}, nil
		case "slow":
			<-ctx.Done()
			return Report{}, fmt.Errorf("list nodes: %w", ctx.Err())
		}
		return Report{}, fmt.Errorf("unscripted host %q", cfg.Host)
	}
}

func target(id string) Target {
	return Target{ID: id, Name: "cluster " + id, Config: &rest.Config{Host: id}}
}

func TestBuildReportsEachClusterInTargetOrder(t *testing.T) {
	targets := []Target{target("hang"), target("ok"), target("fail"), target("slow")}
	start := time.Now()
	ov := Build(context.Background(), targets, Options{Timeout: 200 * time.Millisecond, Assess: scripted(t)})
	elapsed := time.Since(start)

	if elapsed > 2*time.Second {
		t.Errorf("Build took %v; a cluster that ignores its context must not hold it up past the 200ms timeout", elapsed)
	}
	if len(ov.Clusters) != len(targets) {
		t.Fatalf("got %d rows, want %d", len(ov.Clusters), len(targets))
	}
	for i, tg := range targets {
		if r := ov.Clusters[i]; r.ID != tg.ID || r.Name != tg.Name {
			t.Errorf("row %d is %s/%q, want %s/%q (target order)", i, r.ID, r.Name, tg.ID, tg.Name)
		}
	}
	wantErr := map[string]string{
		"hang": "timed out after 200ms",
		"fail": "list nodes: connection refused",
		"slow": "timed out after 200ms",
	}
	for _, r := range ov.Clusters {
		if want, bad := wantErr[r.ID]; bad && (r.Reachable || r.Error != want) {
			t.Errorf("row %s: reachable=%v error=%q, want unreachable with %q", r.ID, r.Reachable, r.Error, want)
		}
	}
	ok := ov.Clusters[1]
	wantCost := 0.096 * 730
	if !ok.Reachable || ok.Error != "" || ok.Score != 92 || ok.Badge != "green" || ok.NodesReady != 1 ||
		ok.NodesTotal != 2 || ok.CPUPercent != 40 || ok.MemoryPercent != 55 ||
		!near(ok.MonthlyCost, wantCost) || ok.UnpricedNodes != 1 {
		t.Errorf("reachable row = %+v, want the report copied in, cost %v and 1 unpriced node", ok, wantCost)
	}
	s := ov.Summary
	if s.Clusters != 4 || s.Healthy != 1 || s.NodesReady != 1 || s.NodesTotal != 2 ||
		s.AverageCPUPercent != 40 || !near(s.MonthlyCost, wantCost) || s.Currency != "USD" {
		t.Errorf("summary = %+v, want only the reachable cluster counted, in USD by default", s)
	}
}

func TestBuildWithConcurrencyNeverRunsMoreAtOnce(t *testing.T) {
	var inFlight, peak atomic.Int32
	assess := func(ctx context.Context, cfg *rest.Config) (Report, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(10 * time.Millisecond) // hold the slot so overlap would show
		return Report{}, nil
	}
	var targets []Target
	for i := range 8 {
		targets = append(targets, target(fmt.Sprint(i)))
	}
	ov := Build(context.Background(), targets, Options{Assess: assess, Concurrency: 2})
	if got := peak.Load(); got > 2 {
		t.Errorf("%d clusters were assessed at once, want at most 2", got)
	}
	for _, r := range ov.Clusters {
		if !r.Reachable {
			t.Errorf("row %s unreachable: %s", r.ID, r.Error)
		}
	}
}

func TestBuildFreesASlotWhenAClusterTimesOut(t *testing.T) {
	targets := []Target{target("hang"), target("ok")}
	start := time.Now()
	ov := Build(context.Background(), targets, Options{Timeout: 200 * time.Millisecond, Assess: scripted(t), Concurrency: 1})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Build took %v; the hung cluster kept its slot past its timeout", elapsed)
	}
	if r := ov.Clusters[1]; !r.Reachable {
		t.Errorf("cluster after the hung one: %+v, want it assessed once the slot was freed", r)
	}
}

func TestBuildWithEndedContextAsksNoCluster(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int32
	assess := func(context.Context, *rest.Config) (Report, error) {
		calls.Add(1)
		return Report{}, nil
	}
	ov := Build(ctx, []Target{target("a"), target("b")}, Options{Assess: assess})
	if n := calls.Load(); n != 0 {
		t.Errorf("Assessor called %d times after the context ended", n)
	}
	for _, r := range ov.Clusters {
		if r.Reachable || r.Error != context.Canceled.Error() {
			t.Errorf("row %s: reachable=%v error=%q, want unreachable with %q", r.ID, r.Reachable, r.Error, context.Canceled)
		}
	}
}

func TestBuildReportsAPanickingAssessorAsUnreachable(t *testing.T) {
	assess := func(context.Context, *rest.Config) (Report, error) { panic("boom") }
	ov := Build(context.Background(), []Target{target("a")}, Options{Assess: assess})
	if r := ov.Clusters[0]; r.Reachable || r.Error != "assessor panicked: boom" {
		t.Errorf("row = %+v, want unreachable with the panic value", r)
	}
}

func TestBuildWithNoTargets(t *testing.T) {
	ov := Build(context.Background(), nil, Options{})
	if len(ov.Clusters) != 0 || ov.Summary.Clusters != 0 || ov.Summary.Currency != "USD" {
		t.Errorf("Build(nil) = %+v, want no rows and an empty USD summary", ov)
	}
}

// A managed cluster's row carries its status and the badge Options give
// it, whatever its health; a row without a status has no badge.
func TestBuildCarriesEachClustersStatusAndBadge(t *testing.T) {
	failed, registry := target("ok"), target("ok")
	failed.ID, failed.Status = "a", "Failed"
	registry.ID = "registry:x"
	badges := map[string]string{"Failed": "red"}
	ov := Build(context.Background(), []Target{failed, registry},
		Options{Assess: scripted(t), StatusBadge: func(s string) string { return badges[s] }})
	if r := ov.Clusters[0]; r.Status != "Failed" || r.StatusBadge != "red" || r.Badge != "green" {
		t.Errorf("row of a Failed cluster with green health: status %q badge %q health %q", r.Status, r.StatusBadge, r.Badge)
	}
	if r := ov.Clusters[1]; r.Status != "" || r.StatusBadge != "" {
		t.Errorf("row of an unmanaged cluster: status %q badge %q, want none", r.Status, r.StatusBadge)
	}
}
