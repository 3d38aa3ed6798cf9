package fluxchart_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/repo"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
	"github.com/ochestra-tech/kubeopera/internal/fluxchart"
)

var controllers = map[string]string{
	"source-controller":       "ghcr.io/fluxcd/source-controller:v1.9.5",
	"kustomize-controller":    "ghcr.io/fluxcd/kustomize-controller:v1.9.5",
	"helm-controller":         "ghcr.io/fluxcd/helm-controller:v1.6.4",
	"notification-controller": "ghcr.io/fluxcd/notification-controller:v1.9.4",
}

// render renders ch as Helm would install it as release flux in
// flux-system, returning the manifests by kind.
func render(t *testing.T, ch *chart.Chart, vals map[string]any) map[string][]string {
	t.Helper()
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "flux", Namespace: "flux-system", IsInstall: true},
		chartutil.DefaultCapabilities)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Render(ch, rv)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	byKind := map[string][]string{}
	for name, content := range files {
		if strings.HasSuffix(name, ".tpl") {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(content) {
			var head struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s: rendered invalid YAML: %v\n%s", name, err, doc)
			}
			if head.Kind != "" {
				byKind[head.Kind] = append(byKind[head.Kind], doc)
			}
		}
	}
	return byKind
}

func deployments(t *testing.T, docs []string) map[string]appsv1.Deployment {
	t.Helper()
	out := map[string]appsv1.Deployment{}
	for _, doc := range docs {
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict([]byte(doc), &d); err != nil {
			t.Fatalf("deployment does not decode strictly: %v\n%s", err, doc)
		}
		out[d.Name] = d
	}
	return out
}

func TestBuildPackagesTheControllersAndTheRealCRDs(t *testing.T) {
	ch, err := loader.LoadArchive(bytes.NewReader(fluxchart.Build(t, "2.19.1")))
	if err != nil {
		t.Fatalf("the archive is not a Helm chart: %v", err)
	}
	if ch.Metadata.Name != "flux2" || ch.Metadata.Version != "2.19.1" || ch.Metadata.AppVersion != fluxchart.AppVersion {
		t.Fatalf("metadata = %s %s (app %s)", ch.Metadata.Name, ch.Metadata.Version, ch.Metadata.AppVersion)
	}
	byKind := render(t, ch, nil)
	var crds []string
	for _, doc := range byKind["CustomResourceDefinition"] {
		var crd struct {
			Metadata struct {
				Name   string
				Labels map[string]string
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &crd); err != nil {
			t.Fatal(err)
		}
		if crd.Metadata.Labels["app.kubernetes.io/part-of"] != "flux" || crd.Metadata.Labels["app.kubernetes.io/instance"] != "flux-system" {
			t.Errorf("CRD %s labels = %v", crd.Metadata.Name, crd.Metadata.Labels)
		}
		crds = append(crds, crd.Metadata.Name)
	}
	for _, want := range []string{"gitrepositories.source.toolkit.fluxcd.io", "helmrepositories.source.toolkit.fluxcd.io",
		"ocirepositories.source.toolkit.fluxcd.io", "buckets.source.toolkit.fluxcd.io", "helmcharts.source.toolkit.fluxcd.io",
		"kustomizations.kustomize.toolkit.fluxcd.io", "helmreleases.helm.toolkit.fluxcd.io",
		"alerts.notification.toolkit.fluxcd.io", "providers.notification.toolkit.fluxcd.io", "receivers.notification.toolkit.fluxcd.io"} {
		if !slices.Contains(crds, want) {
			t.Errorf("CRD %s missing; have %v", want, crds)
		}
	}
	deps := deployments(t, byKind["Deployment"])
	if len(deps) != len(controllers) {
		t.Errorf("deployments = %d, want %d", len(deps), len(controllers))
	}
	for name, image := range controllers {
		d, ok := deps[name]
		if !ok {
			t.Errorf("deployment %s missing", name)
			continue
		}
		labels := d.Labels
		if labels["app.kubernetes.io/instance"] != "flux-system" || labels["app.kubernetes.io/part-of"] != "flux" ||
			labels["app.kubernetes.io/component"] != name {
			t.Errorf("%s labels = %v", name, labels)
		}
		spec := d.Spec.Template.Spec
		if got := spec.Containers[0].Image; got != image {
			t.Errorf("%s image = %s, want %s", name, got, image)
		}
		if spec.ServiceAccountName != name || len(spec.ImagePullSecrets) != 0 {
			t.Errorf("%s serviceAccount %q, pull secrets %v", name, spec.ServiceAccountName, spec.ImagePullSecrets)
		}
	}
	if n := len(byKind["ServiceAccount"]); n != 5 { // four controllers and the pre-install check
		t.Errorf("service accounts = %d, want 5", n)
	}
	if n := len(byKind["Service"]); n != 3 {
		t.Errorf("services = %d, want 3 (source-controller, notification-controller, webhook-receiver)", n)
	}
}

func TestBuildHonoursTheCommunityValuesKeys(t *testing.T) {
	ch, err := loader.LoadArchive(bytes.NewReader(fluxchart.Build(t, "2.19.1")))
	if err != nil {
		t.Fatal(err)
	}
	byKind := render(t, ch, map[string]any{
		"installCRDs":      false,
		"imagePullSecrets": []any{map[string]any{"name": "registry-creds"}},
		"sourceController": map[string]any{"nodeSelector": map[string]any{"pool": "flux"}, "tag": "sha256:abc"},
	})
	if n := len(byKind["CustomResourceDefinition"]); n != 0 {
		t.Errorf("installCRDs=false rendered %d CRDs", n)
	}
	for name, d := range deployments(t, byKind["Deployment"]) {
		spec := d.Spec.Template.Spec
		if len(spec.ImagePullSecrets) != 1 || spec.ImagePullSecrets[0].Name != "registry-creds" {
			t.Errorf("%s imagePullSecrets = %v", name, spec.ImagePullSecrets)
		}
		if name == "source-controller" {
			if spec.NodeSelector["pool"] != "flux" || spec.Containers[0].Image != "ghcr.io/fluxcd/source-controller@sha256:abc" {
				t.Errorf("source-controller nodeSelector %v image %s", spec.NodeSelector, spec.Containers[0].Image)
			}
		}
	}
	if !strings.Contains(strings.Join(byKind["Job"], ""), "registry-creds") {
		t.Error("the pre-install check Job does not pull with the image pull secret")
	}
}

func TestServeIsAHelmChartRepository(t *testing.T) {
	r := fluxchart.Serve(t)
	if r.Version != fluxinstall.DefaultChartVersion || !strings.HasPrefix(r.URL, "http://127.0.0.1:") {
		t.Fatalf("repo = %s version %s", r.URL, r.Version)
	}
	// Helm's own client resolves the chart through the index.
	providers := getter.Providers{{Schemes: []string{"http"}, New: getter.NewHTTPGetter}}
	chartURL, err := repo.FindChartInRepoURL(r.URL, "flux2", r.Version, "", "", "", providers)
	if err != nil {
		t.Fatalf("helm cannot find the chart: %v", err)
	}
	resp, err := http.Get(chartURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	archive, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", chartURL, resp.Status, err)
	}
	if _, err := loader.LoadArchive(bytes.NewReader(archive)); err != nil {
		t.Fatalf("served archive is not a chart: %v", err)
	}
	indexResp, err := http.Get(r.URL + "/index.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer indexResp.Body.Close()
	indexData, _ := io.ReadAll(indexResp.Body)
	sum := sha256.Sum256(archive)
	if !strings.Contains(string(indexData), hex.EncodeToString(sum[:])) {
		t.Error("index.yaml does not carry the served archive's sha256 digest")
	}
	want := []string{"GET /index.yaml", "GET " + r.ChartPath, "GET /index.yaml"}
	if got := r.Requests(); !slices.Equal(got, want) {
		t.Errorf("requests = %v, want %v", got, want)
	}
}
