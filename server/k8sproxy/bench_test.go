package k8sproxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/server/api"
)

// benchObjects is the size of the listed namespace.
const benchObjects = 1000

// BenchmarkProxy compares a get and a list of benchObjects ConfigMaps
// through the proxy with the same requests made directly to the same API
// server, alternating the two in each iteration so both see the same
// load: p50 and p99 of each, their ratios, and the list's bytes per second
// through the proxy. Bodies are read raw, so decoding (the same on both
// paths) does not hide the proxy's cost.
func BenchmarkProxy(b *testing.B) {
	e, sb := cluster(b)
	ctx := context.Background()
	ns := seedNamespace(b, sb.Client)
	tok, _ := e.token(b, "bench", api.Viewer)
	direct := rawClient(b, sb.Config)
	proxied := rawClient(b, e.config("c1", tok))
	for _, op := range []struct{ name, path string }{
		{"get", "/api/v1/namespaces/" + ns + "/configmaps/cm-0"},
		{"list1000", "/api/v1/namespaces/" + ns + "/configmaps"},
	} {
		b.Run(op.name, func(b *testing.B) {
			var d, p []time.Duration
			var bytes int64
			var proxyTime time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := direct.Get().AbsPath(op.path).DoRaw(ctx); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				body, err := proxied.Get().AbsPath(op.path).DoRaw(ctx)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				d, p = append(d, t1.Sub(t0)), append(p, t2.Sub(t1))
				bytes += int64(len(body))
				proxyTime += t2.Sub(t1)
			}
			reportLatencies(b, d, p)
			b.ReportMetric(float64(bytes)/proxyTime.Seconds()/1e6, "proxy-MB/s")
		})
	}
}

func reportLatencies(b *testing.B, direct, proxied []time.Duration) {
	ms := func(v time.Duration) float64 { return float64(v) / float64(time.Millisecond) }
	d50, d99 := quantile(direct, 0.50), quantile(direct, 0.99)
	p50, p99 := quantile(proxied, 0.50), quantile(proxied, 0.99)
	b.ReportMetric(ms(d50), "direct-p50-ms")
	b.ReportMetric(ms(d99), "direct-p99-ms")
	b.ReportMetric(ms(p50), "proxy-p50-ms")
	b.ReportMetric(ms(p99), "proxy-p99-ms")
	b.ReportMetric(float64(p50)/float64(d50), "p50-ratio")
	b.ReportMetric(float64(p99)/float64(d99), "p99-ratio")
	b.ReportMetric(0, "ns/op") // the pair's time is not the measure
}

func quantile(v []time.Duration, q float64) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1))]
}

func rawClient(b *testing.B, cfg *rest.Config) rest.Interface {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling in a latency measure
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return cs.CoreV1().RESTClient()
}

// seedNamespace makes a namespace of benchObjects ConfigMaps once.
func seedNamespace(b *testing.B, cs kubernetes.Interface) string {
	ctx := context.Background()
	const ns = "bench"
	if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err == nil {
		return ns
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for i := range benchObjects {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{"app": "bench"}},
			Data: map[string]string{"key": fmt.Sprintf("value-%d", i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return ns
}

// BenchmarkProxyWatches50 holds 50 watches of a namespace's ConfigMaps
// open through the proxy and, as the same-run baseline, 50 straight to
// the API server, each a raw HTTP stream read as it comes: the heap and
// goroutines the proxy adds per watch (the test's own clients are in both
// figures, so their difference is the proxy's).
func BenchmarkProxyWatches50(b *testing.B) {
	e, sb := cluster(b)
	tok, _ := e.token(b, "watcher", api.Viewer)
	const n = 50
	path := "/api/v1/namespaces/default/configmaps?watch=true"
	for b.Loop() {
		direct := holdWatches(b, sb.Config, path, n)
		proxied := holdWatches(b, e.config("c1", tok), path, n)
		perWatch := float64(proxied.heap-direct.heap) / n / 1024
		b.ReportMetric(float64(proxied.heap)/1e6, "heap-MB-50-proxied")
		b.ReportMetric(float64(direct.heap)/1e6, "heap-MB-50-direct")
		b.ReportMetric(perWatch, "proxy-KB/watch")
		b.ReportMetric(float64(proxied.goroutines-direct.goroutines)/n, "proxy-goroutines/watch")
	}
}

type held struct {
	heap       uint64
	goroutines int
}

// holdWatches opens n watches through cfg, measures what the process
// holds with them open (after a GC), and closes them.
func holdWatches(b *testing.B, cfg *rest.Config, path string, n int) held {
	b.Helper()
	base := measure()
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: rt}
	var bodies []io.Closer
	defer func() {
		for _, c := range bodies {
			c.Close()
		}
		hc.CloseIdleConnections()
	}()
	for range n {
		resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + path)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			b.Fatalf("watch of %s answered %d: %s", cfg.Host, resp.StatusCode, body)
		}
		bodies = append(bodies, resp.Body)
	}
	time.Sleep(200 * time.Millisecond) // every stream set up on both ends
	m := measure()
	return held{heap: m.heap - min(base.heap, m.heap), goroutines: m.goroutines - base.goroutines}
}

func measure() held {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return held{heap: ms.HeapInuse, goroutines: runtime.NumGoroutine()}
}
