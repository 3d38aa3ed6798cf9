package inspect

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/internal/sandbox"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"github.com/ochestra-tech/kubeopera/server/livecache"
)

const viewers = 20

// countingClient is a client of sb whose node lists are counted as they
// leave for the API server (after client-go's rate limiter).
func countingClient(t testing.TB, sb *sandbox.Sandbox, cfg *rest.Config, lists *atomic.Int32) kubernetes.Interface {
	cfg = rest.CopyConfig(cfg)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(r.URL.Path, "/api/v1/nodes") {
				lists.Add(1)
			}
			return rt.RoundTrip(r)
		})
	})
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func startSandbox(t testing.TB) *sandbox.Sandbox {
	sb, err := sandbox.Start(context.Background(), sandbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Stop() })
	for i := range 3 {
		// Static nodes (conditions written here): the sandbox runs no kwok,
		// so a kwok-managed node would never turn Ready.
		ready := []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
		if err := sb.AddNode(context.Background(), sandbox.Node{Name: fmt.Sprintf("node-%d", i), Conditions: ready}); err != nil {
			t.Fatal(err)
		}
	}
	return sb
}

// viewersLoad runs n concurrent Nodes calls and returns their latencies.
func viewersLoad(t testing.TB, in interface {
	Nodes(context.Context) ([]NodeInfo, error)
}, n int) []time.Duration {
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			nodes, err := in.Nodes(context.Background())
			if err != nil || len(nodes) != 3 {
				t.Errorf("viewer %d: %d nodes, %v", i, len(nodes), err)
			}
			lat[i] = time.Since(start)
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	return lat
}

// Twenty viewers loading the host cluster's page at once cost the real API
// server one node list, not twenty queued behind client-go's default limit.
func TestTwentyViewersShareOneNodeList(t *testing.T) {
	sb := startSandbox(t)
	var lists atomic.Int32
	in := NewCached(Inspector{Client: countingClient(t, sb, kubeconfig.Tune(sb.Config), &lists)}, time.Minute)
	viewersLoad(t, in, viewers)
	if n := lists.Load(); n != 1 {
		t.Errorf("%d node lists reached the API server for %d viewers, want 1", n, viewers)
	}
	viewersLoad(t, in, viewers)
	if n := lists.Load(); n != 1 {
		t.Errorf("%d node lists after a second page load within the TTL, want still 1", n)
	}
}

func TestTuneSetsRateLimitsOnlyWhereUnset(t *testing.T) {
	got := kubeconfig.Tune(&rest.Config{Host: "https://x"})
	if got.QPS != kubeconfig.ClientQPS || got.Burst != kubeconfig.ClientBurst {
		t.Errorf("QPS %v burst %d, want %v and %d", got.QPS, got.Burst, kubeconfig.ClientQPS, kubeconfig.ClientBurst)
	}
	if own := kubeconfig.Tune(&rest.Config{QPS: 7, Burst: 9}); own.QPS != 7 || own.Burst != 9 {
		t.Errorf("a configured limit was replaced: %v %d", own.QPS, own.Burst)
	}
}

// BenchmarkTwentyViewers prints the p50 and p90 of 20 concurrent node
// breakdowns: client-go's defaults without a cache (the baseline, as the
// server was), the server's rate limits without a cache, and with the cache.
func BenchmarkTwentyViewers(b *testing.B) {
	sb := startSandbox(b)
	for _, tc := range []struct {
		name   string
		cfg    *rest.Config
		cached bool
	}{
		{"baseline-defaults", sb.Config, false},
		{"tuned", kubeconfig.Tune(sb.Config), false},
		{"tuned-cached", kubeconfig.Tune(sb.Config), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var lists atomic.Int32
			var all []time.Duration
			for range b.N {
				cfg := rest.CopyConfig(tc.cfg)
				if tc.cfg.QPS == 0 {
					cfg.QPS, cfg.Burst = 0, 0 // client-go's defaults: 5/s, burst 10
				}
				var in interface {
					Nodes(context.Context) ([]NodeInfo, error)
				} = Inspector{Client: countingClient(b, sb, cfg, &lists)}
				if tc.cached {
					in = NewCached(in.(Inspector), livecache.DefaultTTL)
				}
				all = append(all, viewersLoad(b, in, viewers)...)
			}
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(all[len(all)*9/10].Milliseconds()), "p90-ms")
			b.ReportMetric(float64(lists.Load())/float64(b.N), "lists/page")
		})
	}
}
