package sandbox

import (
	"context"
	"github.com/ochestra-tech/kubeopera/internal/childproc"

	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkStart measures a warm sandbox start (binaries built, caches
// warm) and reports the resident memory of its processes once started.
func BenchmarkStart(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"apiserver-only", Options{}},
		{"with-workloads-3-nodes", Options{Nodes: []Node{{Name: "n1"}, {Name: "n2"}, {Name: "n3"}}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bin, err := BinDir()
			if err != nil {
				b.Fatal(err)
			}
			var rss int64
			var starts []time.Duration
			for b.Loop() {
				t0 := time.Now()
				s, err := Start(context.Background(), tc.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				starts = append(starts, time.Since(t0))
				rss += residentBytes(bin)
				if err := s.Stop(); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			slices.Sort(starts)
			b.ReportMetric(starts[len(starts)/2].Seconds(), "median-start-s")
			b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MiB")
		})
	}
}

// residentBytes sums VmRSS of this process's sandbox children running a
// binary from dir.
func residentBytes(dir string) int64 {
	var total int64
	for _, procDir := range childproc.Children(dir) {
		status, err := os.ReadFile(filepath.Join(procDir, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}
