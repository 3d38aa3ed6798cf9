package fluxchart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/ochestra-tech/kubeopera/host/pipeline/fluxinstall"
)

// Repo is a Helm chart repository on 127.0.0.1 holding the stand-in chart.
type Repo struct {
	// URL is the repository's URL, for fluxinstall.Chart.RepoURL.
	URL string
	// Version is the one chart version it holds:
	// fluxinstall.DefaultChartVersion.
	Version string
	// ChartPath is where the archive is served, like the community
	// repository's GitHub release download path.
	ChartPath string

	mu       sync.Mutex
	requests []string
}

// Requests are the requests served so far, as "GET /index.yaml".
func (r *Repo) Requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}

// Serve starts a chart repository serving index.yaml and the stand-in
// chart at fluxinstall.DefaultChartVersion; it stops when the test ends.
func Serve(t testing.TB) *Repo {
	t.Helper()
	version := fluxinstall.DefaultChartVersion
	archive := Build(t, version)
	name := fluxinstall.DefaultChartName + "-" + version
	r := &Repo{Version: version, ChartPath: "/releases/download/" + name + "/" + name + ".tgz"}
	var index []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.URL.Path)
		r.mu.Unlock()
		switch req.URL.Path {
		case "/index.yaml":
			w.Header().Set("Content-Type", "application/x-yaml")
			_, _ = w.Write(index)
		case r.ChartPath:
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(archive)
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	index = indexYAML(t, archive, srv.URL+r.ChartPath)
	return r
}

// indexYAML is the repository index listing archive at chartURL, written
// by Helm's own index code.
func indexYAML(t testing.TB, archive []byte, chartURL string) []byte {
	t.Helper()
	ch, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		t.Fatalf("load stand-in chart archive: %v", err)
	}
	sum := sha256.Sum256(archive)
	idx := repo.NewIndexFile()
	if err := idx.MustAdd(ch.Metadata, filepath.Base(chartURL), "", hex.EncodeToString(sum[:])); err != nil {
		t.Fatalf("index stand-in chart: %v", err)
	}
	// Absolute, as in the community index, whose URLs point at GitHub
	// release assets rather than next to index.yaml.
	idx.Entries[ch.Metadata.Name][0].URLs = []string{chartURL}
	path := filepath.Join(t.TempDir(), "index.yaml")
	if err := idx.WriteFile(path, 0o644); err != nil {
		t.Fatalf("write stand-in repository index: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read stand-in repository index: %v", err)
	}
	return data
}
