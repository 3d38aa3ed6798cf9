// Package fluxchart builds, for tests, a stand-in for the fluxcd-community
// flux2 Helm chart and serves it as a real Helm chart repository (index.yaml
// and the packaged chart over HTTP) on 127.0.0.1, since tests have no
// network.
//
// The stand-in carries the real Flux CRDs, taken from the Flux controller
// modules in the Go module cache, as templates of the chart (the community
// chart templates its CRDs too, under installCRDs), and renders one
// Deployment per controller (source, kustomize, helm, notification) with
// the community chart's names, labels, images and values keys, their
// ServiceAccounts and Services, the crd-controller and cluster-reconciler
// RBAC, and the pre-install `flux check --pre` Job. It leaves out the image
// automation controllers, source-watcher, network policies, aggregated
// roles, multi-tenancy, the CRD migration hook and the PodMonitor.
package fluxchart

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
)

// AppVersion is the Flux release the pinned community chart ships.
const AppVersion = "2.9.5"

//go:embed all:chart
var chartFS embed.FS

// Build packages the stand-in chart as version and returns the .tgz, as
// `helm package` writes it.
func Build(t testing.TB, version string) []byte {
	t.Helper()
	data, err := BuildArchive(version)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// BuildArchive is Build for callers that are not tests.
func BuildArchive(version string) ([]byte, error) {
	files := []*loader.BufferedFile{{Name: "Chart.yaml", Data: chartYAML(version)}}
	err := fs.WalkDir(chartFS, "chart", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := chartFS.ReadFile(path)
		files = append(files, &loader.BufferedFile{Name: strings.TrimPrefix(path, "chart/"), Data: data})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read embedded flux2 stand-in chart: %w", err)
	}
	for _, m := range CRDModules {
		tmpl, err := crdTemplate(m)
		if err != nil {
			return nil, err
		}
		files = append(files, &loader.BufferedFile{Name: "templates/" + m.Component + ".crds.yaml", Data: tmpl})
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("load flux2 stand-in chart: %w", err)
	}
	dir, err := os.MkdirTemp("", "fluxchart-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path, err := chartutil.Save(ch, dir)
	if err != nil {
		return nil, fmt.Errorf("package flux2 stand-in chart: %w", err)
	}
	return os.ReadFile(filepath.Clean(path))
}

func chartYAML(version string) []byte {
	var sources []string
	for _, m := range CRDModules {
		sources = append(sources, m.Module+"@"+m.Version)
	}
	return []byte(`apiVersion: v2
name: ` + fluxinstall.DefaultChartName + `
description: Stand-in for the fluxcd-community flux2 chart, built by kubeopera's internal/fluxchart for tests
type: application
version: ` + version + `
appVersion: ` + AppVersion + `
sources:
  - https://github.com/fluxcd-community/helm-charts
annotations:
  kubeopera.io/stand-in: "true"
  kubeopera.io/crd-sources: ` + strings.Join(sources, ",") + `
`)
}
