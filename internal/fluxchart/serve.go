package fluxchart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

	srv      *httptest.Server
	archive  []byte
	mu       sync.Mutex
	requests []string
	index    []byte
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
	r, err := NewRepo()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// NewRepo is Serve for callers that are not tests; Close stops it.
func NewRepo() (*Repo, error) {
	version := fluxinstall.DefaultChartVersion
	archive, err := BuildArchive(version)
	if err != nil {
		return nil, err
	}
	name := fluxinstall.DefaultChartName + "-" + version
	r := &Repo{Version: version, ChartPath: "/releases/download/" + name + "/" + name + ".tgz", archive: archive}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.URL.Path)
		index := r.index
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
	if err := r.ServeAt(r.srv.URL); err != nil {
		r.srv.Close()
		return nil, err
	}
	return r, nil
}

// ServeAt makes base the repository's URL, in URL and in the index's
// chart URL: where clients reach it through a relay (a node's address for
// its pods) rather than at 127.0.0.1.
func (r *Repo) ServeAt(base string) error {
	index, err := indexYAML(r.archive, base+r.ChartPath)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.URL, r.index = base, index
	return nil
}

// Close stops the repository.
func (r *Repo) Close() { r.srv.Close() }

// indexYAML is the repository index listing archive at chartURL, written
// by Helm's own index code.
func indexYAML(archive []byte, chartURL string) ([]byte, error) {
	ch, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("load stand-in chart archive: %w", err)
	}
	sum := sha256.Sum256(archive)
	idx := repo.NewIndexFile()
	if err := idx.MustAdd(ch.Metadata, filepath.Base(chartURL), "", hex.EncodeToString(sum[:])); err != nil {
		return nil, fmt.Errorf("index stand-in chart: %w", err)
	}
	// Absolute, as in the community index, whose URLs point at GitHub
	// release assets rather than next to index.yaml.
	idx.Entries[ch.Metadata.Name][0].URLs = []string{chartURL}
	dir, err := os.MkdirTemp("", "fluxchart-index-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "index.yaml")
	if err := idx.WriteFile(path, 0o644); err != nil {
		return nil, fmt.Errorf("write stand-in repository index: %w", err)
	}
	return os.ReadFile(path)
}
