// Package kubeopera tests the Helm chart in this directory: it renders
// with the Helm Go SDK, passes helm's lint, holds the same CRD and RBAC as
// config/, and every object it renders is accepted by a real
// kube-apiserver (server-side dry-run, strict field validation).
package kubeopera

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

const namespace = "kubeopera-system"

// kubeVersion is the sandbox's Kubernetes, the one the chart renders for
// (helm's default, v1.20, is older than the chart's kubeVersion).
var kubeVersion = &chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}

// required are the values the chart cannot do without.
func required() map[string]any {
	return map[string]any{
		"database":      map[string]any{"existingSecret": "kubeopera-database"},
		"encryptionKey": map[string]any{"existingSecret": "kubeopera-encryption"},
	}
}

// withGateway adds a Gateway and the dashboard's HTTPRoute.
func withGateway() map[string]any {
	v := required()
	v["gateway"] = map[string]any{"enabled": true, "hostname": "kubeopera.example.com",
		"className": "eg", "clusterIssuer": "letsencrypt"}
	return v
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	c, err := loader.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render renders the chart as `helm template` does, CRDs included, and
// returns its objects.
func render(t *testing.T, c *chart.Chart, ns string, values map[string]any) ([]*unstructured.Unstructured, error) {
	t.Helper()
	cfg := &action.Configuration{Releases: storage.Init(driver.NewMemory()),
		KubeClient: &kubefake.PrintingKubeClient{Out: io.Discard}, Capabilities: chartutil.DefaultCapabilities,
		Log: func(string, ...any) {}}
	install := action.NewInstall(cfg)
	install.DryRun, install.ClientOnly, install.IncludeCRDs = true, true, true
	install.ReleaseName, install.Namespace = "kubeopera", ns
	install.KubeVersion = kubeVersion
	rel, err := install.Run(c, values)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	manifests := releaseutil.SplitManifests(rel.Manifest)
	for _, k := range slices.Sorted(maps.Keys(manifests)) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(manifests[k]), &m); err != nil {
			t.Fatalf("rendered %s: %v", k, err)
		}
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
	return objs, nil
}

func mustRender(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	start := time.Now()
	objs, err := render(t, loadChart(t), namespace, values)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	t.Logf("rendered %d objects in %v", len(objs), time.Since(start).Round(time.Millisecond))
	return objs
}

func TestChartPassesHelmLint(t *testing.T) {
	for name, values := range map[string]map[string]any{"required values": required(), "with a Gateway": withGateway()} {
		l := lint.AllWithKubeVersion(".", values, namespace, kubeVersion)
		for _, m := range l.Messages {
			if m.Severity > support.InfoSev {
				t.Errorf("%s: %s", name, m)
			}
		}
	}
	// The lint can fail: without the required Secrets the schema refuses.
	l := lint.AllWithKubeVersion(".", map[string]any{}, namespace, kubeVersion)
	if l.HighestSeverity < support.ErrorSev {
		t.Errorf("lint without the database and encryption key Secrets: %v, want an error", l.Messages)
	}
}

// Missing required values and a foreign namespace fail with what to fix.
func TestChartRefusesWhatItCannotRun(t *testing.T) {
	c := loadChart(t)
	for name, tc := range map[string]struct {
		ns     string
		values map[string]any
		want   string
	}{
		"no database":     {namespace, map[string]any{"encryptionKey": map[string]any{"existingSecret": "k"}}, "existingSecret"},
		"other namespace": {"default", required(), "install KubeOpera into the namespace kubeopera-system"},
		"bad executor": {namespace, merge(required(), map[string]any{"controller": map[string]any{"terraformExecutor": "ssh"}}),
			"terraformExecutor"},
	} {
		if _, err := render(t, c, tc.ns, tc.values); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
}

func merge(a, b map[string]any) map[string]any {
	maps.Copy(a, b)
	return a
}

// The chart's CRD and RBAC are byte-identical copies of config/ (make
// chart-sync), so the chart and `kubectl apply -k config/default` grant
// and serve the same.
func TestChartCRDAndRBACAreConfigs(t *testing.T) {
	for copied, source := range map[string]string{
		"crds/kubeopera.io_hostclusters.yaml":          "../../config/crd/bases/kubeopera.io_hostclusters.yaml",
		"files/rbac/controller-role.yaml":              "../../config/rbac/role.yaml",
		"files/rbac/controller-role-binding.yaml":      "../../config/rbac/role_binding.yaml",
		"files/rbac/controller-role-binding-jobs.yaml": "../../config/rbac/role_binding_jobs.yaml",
		"files/rbac/server-rbac.yaml":                  "../../config/server/rbac.yaml",
	} {
		a, errA := os.ReadFile(copied)
		b, errB := os.ReadFile(source)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s (%v %v): run make chart-sync", copied, source, errA, errB)
		}
	}
	copies, _ := filepath.Glob("files/rbac/*.yaml")
	if len(copies) != 4 {
		t.Errorf("files/rbac holds %v, want the four copies", copies)
	}
}

// find returns the rendered object of kind and name.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func kinds(objs []*unstructured.Unstructured) map[string]int {
	n := map[string]int{}
	for _, o := range objs {
		n[o.GetKind()]++
	}
	return n
}
