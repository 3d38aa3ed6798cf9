package plugin_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/internal/testkit/benchsummary"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// BenchmarkLaunchHandshake measures what starting one plugin costs the host:
// discovery, checksum, process start, mTLS handshake, GetInfo, and stop.
func BenchmarkLaunchHandshake(b *testing.B) {
	dir := pluginDir(b, "gcp-stub")
	quiet := hclog.NewNullLogger()
	for b.Loop() {
		h, err := plugin.Open(context.Background(), plugin.Options{Dir: dir, Logger: quiet})
		if err != nil || len(h.Plugins()) != 1 {
			b.Fatalf("open: %v, %d plugins", err, len(h.Plugins()))
		}
		h.Close()
	}
}

func hostProvider(b *testing.B) *plugin.Supervised {
	h, err := plugin.Open(context.Background(), plugin.Options{Dir: pluginDir(b, "fixture"), Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(h.Close)
	p, err := h.Provider("fixture")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func percentile(d []time.Duration, p float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[int(float64(len(s)-1)*p)].Nanoseconds())
}

// BenchmarkStatusRoundTrip alternates one Status call through the host and
// one raw gRPC call per iteration, so both see the same machine load, and
// reports p50/p99 of each and the host/raw ratio of the medians.
func BenchmarkStatusRoundTrip(b *testing.B) {
	p, raw := hostProvider(b), rawGRPC(b)
	ctx := context.Background()
	var viaHost, viaRaw []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := p.Status(ctx, sdk.StatusRequest{OperationID: "ok"}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := raw.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
			b.Fatal(err)
		}
		viaHost, viaRaw = append(viaHost, t1.Sub(t0)), append(viaRaw, time.Since(t1))
	}
	b.ReportMetric(percentile(viaHost, 0.5), "host-p50-ns")
	b.ReportMetric(percentile(viaHost, 0.99), "host-p99-ns")
	b.ReportMetric(percentile(viaRaw, 0.5), "raw-p50-ns")
	b.ReportMetric(percentile(viaRaw, 0.99), "raw-p99-ns")
	b.ReportMetric(percentile(viaHost, 0.5)/percentile(viaRaw, 0.5), "host/raw-p50")
	b.ReportMetric(percentile(viaHost, 0.99)/percentile(viaRaw, 0.99), "host/raw-p99")
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		benchsummary.Print(benchsummary.Figure{Name: "plugin call " + q.name + " via host (floor: raw gRPC, same socket+mTLS)",
			Value: percentile(viaHost, q.p) / 1000, Floor: percentile(viaRaw, q.p) / 1000, Unit: "µs", Op: "<=", Limit: 1.2})
	}
}

// parallel runs n calls of call spread over 16 goroutines and returns calls/s.
func parallel(b *testing.B, n int, call func() error) float64 {
	const workers = 16
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := call(); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkStatus16Callers measures throughput with 16 concurrent callers
// through the host against the raw gRPC baseline in the same run, and
// against raw calls that each carry a deadline, as every host call does
// (CallTimeout): on 2 cores the deadline alone (its timers and the
// grpc-timeout header) costs raw gRPC about 5-8% of its throughput.
func BenchmarkStatus16Callers(b *testing.B) {
	p, raw := hostProvider(b), rawGRPC(b)
	ctx := context.Background()
	var hostRate, rawRate, rawDeadlineRate float64
	rounds := 0
	for b.Loop() {
		rounds++
		hostRate += parallel(b, 1000, func() error {
			_, err := p.Status(ctx, sdk.StatusRequest{OperationID: "ok"})
			return err
		})
		rawRate += parallel(b, 1000, func() error {
			_, err := raw.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		})
		// The same raw calls, each with a deadline as the host gives every
		// call (its CallTimeout): what the deadline alone costs.
		rawDeadlineRate += parallel(b, 1000, func() error {
			c, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			_, err := raw.Check(c, &healthpb.HealthCheckRequest{})
			return err
		})
	}
	b.ReportMetric(hostRate/float64(rounds), "host-calls/s")
	b.ReportMetric(rawRate/float64(rounds), "raw-calls/s")
	b.ReportMetric(hostRate/rawRate, "host/raw-throughput")
	b.ReportMetric(hostRate/rawDeadlineRate, "host/raw-with-deadline-throughput")
	benchsummary.Print(benchsummary.Figure{Name: "plugin calls/s, 16 callers via host (floor: raw gRPC)",
		Value: hostRate / float64(rounds), Floor: rawRate / float64(rounds), Unit: "calls/s", Op: ">=", Limit: 0.9})
	benchsummary.Print(benchsummary.Figure{Name: "plugin calls/s, 16 callers via host (floor: raw gRPC, each call with a deadline)",
		Value: hostRate / float64(rounds), Floor: rawDeadlineRate / float64(rounds), Unit: "calls/s"})
}
