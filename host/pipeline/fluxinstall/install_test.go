package fluxinstall_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
)

// fluxCRDs are CRDs the flux2 chart installs, one or more per controller.
var fluxCRDs = []string{
	"gitrepositories.source.toolkit.fluxcd.io", "helmrepositories.source.toolkit.fluxcd.io",
	"ocirepositories.source.toolkit.fluxcd.io", "buckets.source.toolkit.fluxcd.io", "helmcharts.source.toolkit.fluxcd.io",
	"kustomizations.kustomize.toolkit.fluxcd.io", "helmreleases.helm.toolkit.fluxcd.io",
	"alerts.notification.toolkit.fluxcd.io", "providers.notification.toolkit.fluxcd.io",
	"receivers.notification.toolkit.fluxcd.io",
}

var controllerNames = []string{"helm-controller", "kustomize-controller", "notification-controller", "source-controller"}

// TestInstallUpgradeAndPullSecret installs Flux with the defaults (only the
// repository URL points at the loopback stand-in), then runs Install again
// three times: unchanged, with an image pull secret, and without it.
func TestInstallUpgradeAndPullSecret(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	repo := fluxchart.Serve(t)
	// The cluster is given as kubeconfig bytes, as the pipeline holds it.
	restConfig, err := clientcmd.RESTConfigFromKubeConfig(sb.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	opts := fluxinstall.Options{Chart: fluxinstall.Chart{RepoURL: repo.URL}, CacheDir: t.TempDir()}

	start := time.Now()
	rel, err := fluxinstall.Install(ctx, restConfig, opts)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	installed := time.Now()
	t.Logf("install took %s", installed.Sub(start).Round(time.Millisecond))
	want := fluxinstall.Release{Name: "flux", Namespace: "flux-system", Revision: 1, Status: "deployed",
		ChartVersion: fluxinstall.DefaultChartVersion, AppVersion: fluxchart.AppVersion}
	if rel != want {
		t.Fatalf("release = %+v, want %+v", rel, want)
	}
	if _, err := sb.Client.CoreV1().Namespaces().Get(ctx, "flux-system", metav1.GetOptions{}); err != nil {
		t.Fatalf("namespace flux-system not created: %v", err)
	}
	record, err := sb.Client.CoreV1().Secrets("flux-system").Get(ctx, "sh.helm.release.v1.flux.v1", metav1.GetOptions{})
	if err != nil || record.Labels["owner"] != "helm" || record.Labels["status"] != "deployed" {
		t.Fatalf("helm release record: %v %v", err, record.GetLabels())
	}
	dc := dynamic.NewForConfigOrDie(sb.Config)
	poll(ctx, t, "Flux CRDs Established", func() (bool, string) {
		for _, name := range fluxCRDs {
			if ok, err := established(ctx, dc, name); !ok {
				return false, name + " not Established: " + errString(err)
			}
		}
		return true, ""
	})
	waitReady(ctx, t, sb.Client, "flux-system")
	t.Logf("Ready %s after Install returned", time.Since(installed).Round(time.Millisecond))
	if deps := fluxDeployments(ctx, t, "flux-system"); len(deps) != len(controllerNames) {
		t.Fatalf("controller deployments = %d, want %d", len(deps), len(controllerNames))
	}

	start = time.Now()
	rel, err = fluxinstall.Install(ctx, restConfig, opts)
	if err != nil {
		t.Fatalf("second install: %v", err)
	}
	t.Logf("unchanged re-install (upgrade) took %s", time.Since(start).Round(time.Millisecond))
	if rel.Revision != 2 || !rel.Upgraded || rel.Status != "deployed" {
		t.Fatalf("second install = %+v, want an upgrade to revision 2", rel)
	}
	// Nothing changed in the pod templates: Flux stays Ready, no rollout.
	if r, err := fluxinstall.Health(ctx, sb.Client, "flux-system"); err != nil || !r.Ready {
		t.Fatalf("after the upgrade: %+v %v", r, err)
	}
	if n := count(repo.Requests(), "GET "+repo.ChartPath); n != 1 {
		t.Errorf("chart archive downloaded %d times, want once (then from CacheDir)", n)
	}
	if n := count(repo.Requests(), "GET /index.yaml"); n != 2 {
		t.Errorf("index fetched %d times, want on each run (2)", n)
	}

	opts.ImagePullSecret = "registry-creds"
	if rel, err = fluxinstall.Install(ctx, restConfig, opts); err != nil || rel.Revision != 3 {
		t.Fatalf("install with an image pull secret: %+v %v", rel, err)
	}
	for name, d := range fluxDeployments(ctx, t, "flux-system") {
		if got := pullSecrets(d); !slices.Equal(got, []string{"registry-creds"}) {
			t.Errorf("%s pulls with %v, want [registry-creds]", name, got)
		}
	}
	t.Logf("Ready again %s after the pull-secret rollout began", waitReady(ctx, t, sb.Client, "flux-system").Round(time.Millisecond))

	// Helm would reuse the last values when a run passes none; Install
	// must not, or a removed secret would stay.
	opts.ImagePullSecret = ""
	if rel, err = fluxinstall.Install(ctx, restConfig, opts); err != nil || rel.Revision != 4 {
		t.Fatalf("install without the image pull secret: %+v %v", rel, err)
	}
	for name, d := range fluxDeployments(ctx, t, "flux-system") {
		if got := pullSecrets(d); len(got) != 0 {
			t.Errorf("%s still pulls with %v after the secret was removed", name, got)
		}
	}
	waitReady(ctx, t, sb.Client, "flux-system")
}

// isolated are values for a second release in the same cluster: the CRDs
// and the cluster-wide RBAC belong to the release in flux-system.
func isolated(extra map[string]any) map[string]any {
	vals := map[string]any{"installCRDs": false, "rbac": map[string]any{"create": false}}
	for k, v := range extra {
		vals[k] = v
	}
	return vals
}

// TestHealthNamesTheUnschedulableController installs Flux with
// source-controller bound to a node that does not exist: Health must name
// source-controller and the scheduler's reason, and nothing else.
func TestHealthNamesTheUnschedulableController(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	repo := fluxchart.Serve(t)
	const ns = "flux-unschedulable"
	_, err := fluxinstall.Install(ctx, sb.Config, fluxinstall.Options{
		Chart: fluxinstall.Chart{RepoURL: repo.URL}, Namespace: ns, ReleaseName: "flux-unschedulable",
		Values: isolated(map[string]any{"sourceController": map[string]any{
			"nodeSelector": map[string]any{"kubeopera.io/pool": "nowhere"}}}),
	})
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	var last fluxinstall.Report
	poll(ctx, t, "only source-controller not ready, with the scheduler's reason", func() (bool, string) {
		last, err = fluxinstall.Health(ctx, sb.Client, ns)
		if err != nil {
			t.Fatalf("health: %v", err)
		}
		return len(last.NotReady) == 1 && strings.Contains(last.NotReady[0], "Unschedulable"), strings.Join(last.NotReady, "\n")
	})
	got := last.NotReady[0]
	t.Logf("NotReady: %s", got)
	if last.Ready {
		t.Error("Ready with a controller unschedulable")
	}
	for _, want := range []string{"source-controller: ", "0/1 replicas available", "pod source-controller-",
		"Unschedulable: 0/1 nodes are available", "node affinity/selector"} {
		if !strings.Contains(got, want) {
			t.Errorf("NotReady %q lacks %q", got, want)
		}
	}
}

// TestHealthWithoutFlux reports a namespace without Flux as not Ready.
func TestHealthWithoutFlux(t *testing.T) {
	t.Parallel()
	r, err := fluxinstall.Health(context.Background(), sb.Client, "default")
	if err != nil {
		t.Fatal(err)
	}
	if r.Ready || len(r.NotReady) != 1 || !strings.Contains(r.NotReady[0], "is Flux installed there?") {
		t.Errorf("report = %+v", r)
	}
}

func errString(err error) string {
	if err == nil {
		return "no condition yet"
	}
	return err.Error()
}
