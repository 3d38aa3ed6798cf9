package fluxinstall_test

import (
	"context"
	"testing"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
)

// BenchmarkReinstall measures a re-run of Install over an installed,
// unchanged release (an upgrade to a new revision, chart from CacheDir):
// the cost of the pipeline's idempotent re-runs.
func BenchmarkReinstall(b *testing.B) {
	ctx := context.Background()
	repo := fluxchart.Serve(b)
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: "flux-bench-reinstall",
		ReleaseName: "flux-bench", Values: isolated(nil), CacheDir: b.TempDir()}
	if _, err := fluxinstall.Install(ctx, sb.Config, opts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := fluxinstall.Install(ctx, sb.Config, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHealth measures one Health call on an installed Flux.
func BenchmarkHealth(b *testing.B) {
	ctx := context.Background()
	repo := fluxchart.Serve(b)
	const ns = "flux-bench-health"
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns,
		ReleaseName: "flux-bench-health", Values: isolated(nil)}
	if _, err := fluxinstall.Install(ctx, sb.Config, opts); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := fluxinstall.Health(ctx, sb.Client, ns); err != nil {
			b.Fatal(err)
		}
	}
}
