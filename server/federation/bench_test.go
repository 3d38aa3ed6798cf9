package federation

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
)

// BenchmarkFanOut100 checks that asking 100 clusters costs about as much
// wall time as asking one: every fake API server answers after 50ms, so a
// serial or throttled fan-out would show as fanout/single far above 1. The
// goal is fanout/single < 1.5; the single-cluster Build is the same-run
// baseline.
func BenchmarkFanOut100(b *testing.B) {
	const clusters, delay = 100, 50 * time.Millisecond
	nodes := []corev1.Node{
		node("a", true, typed("m5.large")),
		node("b", true, typed("t3.medium")),
		node("c", false, typed("c5.xlarge")),
	}
	targets := make([]Target, clusters)
	for i := range targets {
		srv := fakeAPIServer(b, nodes, delay) // closed by b.Cleanup
		// One rest.Config each: client-go's QPS/Burst limiter is per config.
		targets[i] = Target{ID: fmt.Sprint(i), Config: &rest.Config{Host: srv.URL}}
	}
	single := targets[:1]
	opts := Options{Timeout: 10 * time.Second}
	ctx := context.Background()

	// Warm up connections so neither side pays for TCP setup in the loop.
	check(b, Build(ctx, single, opts), 1)
	check(b, Build(ctx, targets, opts), clusters)

	var singleTime, fanoutTime time.Duration
	for b.Loop() {
		start := time.Now()
		check(b, Build(ctx, single, opts), 1)
		mid := time.Now()
		check(b, Build(ctx, targets, opts), clusters)
		singleTime += mid.Sub(start)
		fanoutTime += time.Since(mid)
	}
	n := float64(b.N)
	singleMS := float64(singleTime.Microseconds()) / 1000 / n
	fanoutMS := float64(fanoutTime.Microseconds()) / 1000 / n
	b.ReportMetric(fanoutMS, "fanout-ms")
	b.ReportMetric(singleMS, "single-ms")
	b.ReportMetric(fanoutMS/singleMS, "fanout/single")
}

// check fails the benchmark unless every cluster of ov was reached.
func check(b *testing.B, ov Overview, want int) {
	if ov.Summary.Clusters != want || ov.Summary.NodesTotal != 3*want {
		for _, r := range ov.Clusters {
			if !r.Reachable {
				b.Fatalf("cluster %s unreachable: %s", r.ID, r.Error)
			}
		}
		b.Fatalf("summary %+v, want %d clusters with 3 nodes each", ov.Summary, want)
	}
}
