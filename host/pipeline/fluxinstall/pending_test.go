package fluxinstall_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/release"
	helmtime "helm.sh/helm/v3/pkg/time"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
)

// TestInterruptedRunIsRecovered: a revision left pending-upgrade by a run
// that died blocks Install while it may still be running (younger than the
// timeout) and is marked failed and upgraded past once older.
func TestInterruptedRunIsRecovered(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	repo := fluxchart.Serve(t)
	const ns = "flux-interrupted"
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns, ReleaseName: "flux-interrupted",
		Values: isolated(nil), Timeout: time.Minute}
	if _, err := fluxinstall.Install(ctx, sb.Config, opts); err != nil {
		t.Fatalf("install: %v", err)
	}
	cfg, err := fluxinstall.ActionConfig(sb.Config, ns)
	if err != nil {
		t.Fatal(err)
	}
	interrupt := func(age time.Duration) {
		t.Helper()
		last, err := cfg.Releases.Last("flux-interrupted")
		if err != nil {
			t.Fatal(err)
		}
		last.Info.Status = release.StatusPendingUpgrade
		last.Info.LastDeployed = helmtime.Time{Time: time.Now().Add(-age)}
		if err := cfg.Releases.Update(last); err != nil {
			t.Fatal(err)
		}
	}

	interrupt(10 * time.Second)
	_, err = fluxinstall.Install(ctx, sb.Config, opts)
	if err == nil || !strings.Contains(err.Error(), "is pending-upgrade since") || !strings.Contains(err.Error(), "another install is running") {
		t.Fatalf("install over a fresh pending revision: %v, want it refused as running", err)
	}

	interrupt(2 * time.Minute)
	rel, err := fluxinstall.Install(ctx, sb.Config, opts)
	if err != nil {
		t.Fatalf("install over a stale pending revision: %v", err)
	}
	if rel.Revision != 2 || rel.Status != "deployed" {
		t.Errorf("release = %+v, want revision 2 deployed", rel)
	}
	first, err := cfg.Releases.Get("flux-interrupted", 1)
	// Marked failed, then superseded by revision 2 as any upgraded revision.
	if err != nil || first.Info.Status != release.StatusSuperseded ||
		!strings.Contains(first.Info.Description, "interrupted while pending-upgrade; marked failed by kubeopera") {
		t.Errorf("interrupted revision 1: %v %q %v", first.Info.Status, first.Info.Description, err)
	}
}
