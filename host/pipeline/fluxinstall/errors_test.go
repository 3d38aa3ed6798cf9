package fluxinstall_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
)

// closedPortURL is an http URL on 127.0.0.1 where nothing listens.
func closedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return url
}

// TestChartErrorsSayWhatToFix: a chart that cannot be had fails before the
// cluster is touched, with an error naming the repository and the fix.
func TestChartErrorsSayWhatToFix(t *testing.T) {
	t.Parallel()
	repo := fluxchart.Serve(t)
	closed := closedPortURL(t)
	cases := []struct {
		name  string
		chart fluxinstall.Chart
		want  []string
		as    any
	}{
		{"a closed port is an unreachable repository", fluxinstall.Chart{RepoURL: closed},
			[]string{"flux chart repository " + closed + " unreachable: ", "connection refused",
				": check the chart repository URL or the network"}, new(*fluxinstall.RepositoryError)},
		{"a path without an index is not a repository", fluxinstall.Chart{RepoURL: repo.URL + "/charts"},
			[]string{"flux chart repository " + repo.URL + "/charts answered 404 Not Found", "check the chart repository URL"},
			new(*fluxinstall.RepositoryError)},
		{"an unknown version lists the available ones", fluxinstall.Chart{RepoURL: repo.URL, Version: "2.99.0"},
			[]string{`chart flux2 version "2.99.0" not found`, "available versions: " + fluxinstall.DefaultChartVersion},
			new(*fluxinstall.ChartNotFoundError)},
		{"a range no version satisfies lists the available ones", fluxinstall.Chart{RepoURL: repo.URL, Version: "~2.20"},
			[]string{`version "~2.20" not found`, fluxinstall.DefaultChartVersion}, new(*fluxinstall.ChartNotFoundError)},
		{"an unknown chart lists the charts there", fluxinstall.Chart{RepoURL: repo.URL, Name: "flux3"},
			[]string{`chart "flux3" not found`, "charts there: flux2"}, new(*fluxinstall.ChartNotFoundError)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := fluxinstall.Install(ctx, sb.Config, fluxinstall.Options{Chart: tc.chart, Namespace: "flux-never",
				ReleaseName: "flux-never", Timeout: 10 * time.Second})
			if err == nil {
				t.Fatal("install succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if !errors.As(err, tc.as) {
				t.Errorf("error %T is not a %T", err, tc.as)
			}
		})
	}
	_, err := sb.Client.CoreV1().Namespaces().Get(context.Background(), "flux-never", metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("namespace flux-never exists after failed chart fetches (%v): the cluster was touched", err)
	}
}

// TestFailedInstallReportsHelmAndARerunRecovers: the API server rejects a
// Deployment; Install returns Helm's message, and a corrected re-run
// upgrades the failed release.
func TestFailedInstallReportsHelmAndARerunRecovers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	repo := fluxchart.Serve(t)
	const ns = "flux-failing"
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns, ReleaseName: "flux-failing",
		Values: isolated(map[string]any{"helmController": map[string]any{"labels": map[string]any{"not a label": "x"}}})}
	_, err := fluxinstall.Install(ctx, sb.Config, opts)
	if err == nil {
		t.Fatal("install with an invalid label succeeded")
	}
	for _, want := range []string{"install flux release flux-failing in namespace flux-failing: ", `"helm-controller" is invalid`, "not a label"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	t.Logf("failed install: %v", err)

	opts.Values = isolated(nil)
	rel, err := fluxinstall.Install(ctx, sb.Config, opts)
	if err != nil {
		t.Fatalf("corrected re-run: %v", err)
	}
	if !rel.Upgraded || rel.Revision != 2 || rel.Status != "deployed" {
		t.Errorf("corrected re-run = %+v, want the failed revision 1 upgraded to a deployed revision 2", rel)
	}
	waitReady(ctx, t, sb.Client, ns)
}

// TestStuckPreInstallCheckFailsAtTheTimeout: the chart's pre-install
// `flux check --pre` Job is the one thing Install waits for. When it cannot
// run (here: no node for it) Install fails at Timeout saying so; the re-run
// upgrades, and Helm runs no pre-install hook on upgrade.
func TestStuckPreInstallCheckFailsAtTheTimeout(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	repo := fluxchart.Serve(t)
	const ns = "flux-stuck-check"
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns, ReleaseName: "flux-stuck-check",
		Timeout: 3 * time.Second,
		Values:  isolated(map[string]any{"cli": map[string]any{"nodeSelector": map[string]any{"kubeopera.io/pool": "nowhere"}}})}
	start := time.Now()
	_, err := fluxinstall.Install(ctx, sb.Config, opts)
	if err == nil {
		t.Fatal("install succeeded with an unschedulable pre-install check")
	}
	t.Logf("failed after %s: %v", time.Since(start).Round(time.Millisecond), err)
	for _, want := range []string{"failed pre-install", "flux check --pre", "ghcr.io/fluxcd/flux-cli"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	rel, err := fluxinstall.Install(ctx, sb.Config, opts)
	if err != nil || rel.Revision != 2 || rel.Status != "deployed" {
		t.Fatalf("re-run: %+v %v, want revision 2 deployed", rel, err)
	}
	waitReady(ctx, t, sb.Client, ns)
}
