package controller

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	v1 "github.com/ochestra-tech/kubeopera/host/api/v1alpha1"
)

// BenchmarkConnect500 connects 500 HostClusters to one live API server (the
// management sandbox itself) and reports how long until all have left
// ValidatingAccess, reconciles per second, and the RSS of this process
// (controller plus test client).
func BenchmarkConnect500(b *testing.B) {
	for b.Loop() {
		e := newEnv(b, 0, nil)
		before := reconciles(b)
		start := time.Now()
		for i := range 500 {
			e.connect(fmt.Sprintf("c%03d", i), e.mgmt.Kubeconfig)
		}
		created := time.Since(start)
		for {
			var list v1.HostClusterList
			if err := e.c.List(context.Background(), &list, client.InNamespace(v1.Namespace)); err != nil {
				b.Fatal(err)
			}
			done := 0
			for _, hc := range list.Items {
				switch hc.Status.Phase {
				case v1.PhaseBootstrappingFlux:
					done++
				case v1.PhaseFailed:
					b.Fatalf("%s failed: %s", hc.Name, hc.Status.Message)
				}
			}
			if done == 500 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		elapsed := time.Since(start)
		n := reconciles(b) - before
		b.ReportMetric(elapsed.Seconds(), "all-validated-s")
		b.ReportMetric(created.Seconds(), "create-500-s")
		b.ReportMetric(n/elapsed.Seconds(), "reconciles/s")
		b.ReportMetric(float64(rssKiB())/1024, "rss-MiB")
		e.halt()
	}
}

func reconciles(b *testing.B) float64 {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, f := range families {
		if f.GetName() == "controller_runtime_reconcile_total" {
			for _, m := range f.GetMetric() {
				total += counterValue(m)
			}
		}
	}
	return total
}

func counterValue(m *dto.Metric) float64 { return m.GetCounter().GetValue() }

func rssKiB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return 0
}
