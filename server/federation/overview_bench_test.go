package federation

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
)

// countingFleet is n fake API servers that answer GET /api/v1/nodes after
// delay and count what they were asked; hang more never answer.
func countingFleet(b *testing.B, n, hang int, delay time.Duration) ([]Target, *atomic.Int64) {
	body, err := json.Marshal(corev1.NodeList{TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"},
		Items: []corev1.Node{node("a", true, typed("m5.large")), node("b", true, typed("t3.medium"))}})
	if err != nil {
		b.Fatal(err)
	}
	var asked atomic.Int64
	release := make(chan struct{})
	b.Cleanup(func() { close(release) })
	targets := make([]Target, 0, n+hang)
	for i := range n + hang {
		hangs := i >= n
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked.Add(1)
			wait := time.After(delay)
			if hangs {
				wait = nil
			}
			select {
			case <-wait:
			case <-r.Context().Done():
				return
			case <-release:
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}))
		b.Cleanup(srv.Close)
		targets = append(targets, Target{ID: fmt.Sprint(i), Config: &rest.Config{Host: srv.URL, QPS: -1}})
	}
	return targets, &asked
}

// BenchmarkOverview1000 builds the overview of 1,000 clusters that each
// answer in 50ms, at the default concurrency, against the same-run floor of
// one cluster (the 50ms itself plus one client's overhead). The goal is the
// whole fan-out within 1s. It also reports how much later the page is with
// 5 more clusters that never answer: at most their timeout (2s), as each
// is given up at its deadline.
func BenchmarkOverview1000(b *testing.B) {
	const clusters, delay, timeout = 1000, 50 * time.Millisecond, 2 * time.Second
	targets, _ := countingFleet(b, clusters, 5, delay)
	ctx := context.Background()
	opts := Options{Timeout: timeout}
	Build(ctx, targets[:clusters], opts) // warm the connections
	var single, fanout, hung []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ov := Build(ctx, targets[:1], opts)
		t1 := time.Now()
		all := Build(ctx, targets[:clusters], opts)
		t2 := time.Now()
		withHung := Build(ctx, targets, opts)
		single, fanout, hung = append(single, t1.Sub(t0)), append(fanout, t2.Sub(t1)), append(hung, time.Since(t2))
		if ov.Summary.Clusters != 1 || all.Summary.NodesTotal != 2*clusters || withHung.Summary.NodesTotal != 2*clusters {
			b.Fatalf("overview missed clusters: %+v / %+v / %+v", ov.Summary, all.Summary, withHung.Summary)
		}
	}
	ms := func(d []time.Duration) float64 { return float64(median(d).Microseconds()) / 1000 }
	b.ReportMetric(ms(fanout), "fanout-ms")
	b.ReportMetric(ms(single), "single-ms")
	b.ReportMetric(ms(hung), "with-5-hung-ms")
	benchsummary.Print(benchsummary.Figure{Name: "overview: 1,000 clusters at 50 ms (floor: 1 cluster)",
		Value: ms(fanout), Floor: ms(single), Unit: "ms", Op: "<=", Limit: 1000, Absolute: true})
	benchsummary.Print(benchsummary.Figure{Name: "overview: delay 5 hung clusters add to it (goal: their 2 s timeout)",
		Value: ms(hung) - ms(fanout), Unit: "ms", Op: "<=", Limit: float64(timeout.Milliseconds())})
}

// BenchmarkOverviewViewers50 counts the requests the clusters receive when
// 50 viewers open the overview at once, through the Cache the API uses,
// against one viewer alone (the floor). The goal is a ratio of at most 1.1.
func BenchmarkOverviewViewers50(b *testing.B) {
	const clusters = 100
	targets, asked := countingFleet(b, clusters, 0, 50*time.Millisecond)
	build := func(ctx context.Context) (Overview, error) { return Build(ctx, targets, Options{}), nil }
	view := func(viewers int) int64 {
		c := NewCache(DefaultCacheTTL)
		before := asked.Load()
		var wg sync.WaitGroup
		for range viewers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if ov, err := c.Get(context.Background(), "", build); err != nil || ov.Summary.Clusters != clusters {
					b.Errorf("viewer: %+v, %v", ov.Summary, err)
				}
			}()
		}
		wg.Wait()
		return asked.Load() - before
	}
	var one, fifty int64
	for b.Loop() {
		one += view(1)
		fifty += view(50)
	}
	b.ReportMetric(float64(one)/float64(b.N), "requests-1-viewer")
	b.ReportMetric(float64(fifty)/float64(b.N), "requests-50-viewers")
	benchsummary.Print(benchsummary.Figure{Name: "overview: requests to clusters, 50 viewers (floor: 1 viewer)",
		Value: float64(fifty) / float64(b.N), Floor: float64(one) / float64(b.N), Unit: "req", Op: "<=", Limit: 1.1})
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
