package fluxinstall

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"
)

// Limits on what a chart repository may send.
const (
	maxIndexBytes = 64 << 20
	maxChartBytes = 32 << 20
)

// fetchChart resolves c in its repository's index and loads the chart
// archive, from cacheDir when a copy with the index's digest is there.
func fetchChart(ctx context.Context, c Chart, cacheDir string, timeout time.Duration, log *slog.Logger) (*chart.Chart, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	idx, err := fetchIndex(ctx, c.RepoURL, cacheDir)
	if err != nil {
		return nil, err
	}
	cv, err := resolveVersion(idx, c)
	if err != nil {
		return nil, err
	}
	data, err := chartArchive(ctx, c.RepoURL, cv, cacheDir, log)
	if err != nil {
		return nil, err
	}
	ch, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("load chart %s %s from %s: %w: the archive is not a valid Helm chart", c.Name, cv.Version, c.RepoURL, err)
	}
	if ch.Metadata.Name != c.Name || ch.Metadata.Version != cv.Version {
		return nil, fmt.Errorf("chart archive for %s %s from %s holds %s %s: the repository index is inconsistent",
			c.Name, cv.Version, c.RepoURL, ch.Metadata.Name, ch.Metadata.Version)
	}
	return ch, nil
}

// fetchIndex downloads the repository's index.yaml into cacheDir and loads
// it with Helm's index loader.
func fetchIndex(ctx context.Context, repoURL, cacheDir string) (*repo.IndexFile, error) {
	indexURL, err := repo.ResolveReferenceURL(repoURL, "index.yaml")
	if err != nil {
		return nil, fmt.Errorf("flux chart repository URL %q: %w: give an http(s) URL", repoURL, err)
	}
	data, err := get(ctx, indexURL, maxIndexBytes)
	if err != nil {
		var re *RepositoryError
		if errors.As(err, &re) {
			re.URL = repoURL
		}
		return nil, err
	}
	path := filepath.Join(cacheDir, "repository", urlKey(repoURL)+"-index.yaml")
	if err := writeFileAtomic(path, data); err != nil {
		return nil, err
	}
	idx, err := repo.LoadIndexFile(path)
	if err != nil {
		return nil, fmt.Errorf("flux chart repository %s: index.yaml is not a Helm repository index: %w: check the chart repository URL", repoURL, err)
	}
	return idx, nil
}

func resolveVersion(idx *repo.IndexFile, c Chart) (*repo.ChartVersion, error) {
	versions, ok := idx.Entries[c.Name]
	if !ok || len(versions) == 0 {
		names := make([]string, 0, len(idx.Entries))
		for n := range idx.Entries {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &ChartNotFoundError{URL: c.RepoURL, Name: c.Name, Available: names}
	}
	cv, err := idx.Get(c.Name, c.Version)
	if err != nil || len(cv.URLs) == 0 {
		available := make([]string, 0, len(versions))
		for _, v := range versions { // newest first: Helm sorts the index on load
			available = append(available, v.Version)
		}
		return nil, &ChartNotFoundError{URL: c.RepoURL, Name: c.Name, Version: c.Version, Available: available}
	}
	return cv, nil
}

// chartArchive returns the chart's .tgz, from cacheDir when a copy whose
// digest matches the index is there, else downloaded and cached.
func chartArchive(ctx context.Context, repoURL string, cv *repo.ChartVersion, cacheDir string, log *slog.Logger) ([]byte, error) {
	path := filepath.Join(cacheDir, "charts", fmt.Sprintf("%s-%s.tgz", cv.Name, cv.Version))
	if data, err := os.ReadFile(path); err == nil && digestMatches(data, cv.Digest) {
		log.Debug("flux chart from cache", "chart", cv.Name, "version", cv.Version)
		return data, nil
	}
	chartURL, err := repo.ResolveReferenceURL(repoURL, cv.URLs[0])
	if err != nil {
		return nil, fmt.Errorf("chart %s %s: bad URL %q in the index of %s: %w", cv.Name, cv.Version, cv.URLs[0], repoURL, err)
	}
	data, err := get(ctx, chartURL, maxChartBytes)
	if err != nil {
		return nil, fmt.Errorf("download chart %s %s: %w", cv.Name, cv.Version, err)
	}
	if !digestMatches(data, cv.Digest) {
		return nil, fmt.Errorf("chart %s %s from %s has sha256 %s but the index of %s says %s: the download was altered or the index is stale; retry",
			cv.Name, cv.Version, chartURL, sha256Hex(data), repoURL, cv.Digest)
	}
	log.Info("flux chart downloaded", "chart", cv.Name, "version", cv.Version, "url", chartURL, "bytes", len(data))
	return data, writeFileAtomic(path, data)
}

// get fetches url, failing with a *RepositoryError when the server cannot be
// reached or does not answer 200.
func get(ctx context.Context, url string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("request %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, &RepositoryError{URL: url, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &RepositoryError{URL: url, Status: resp.Status + " for " + url,
			Err: fmt.Errorf("HTTP %s", resp.Status)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &RepositoryError{URL: url, Err: fmt.Errorf("read %s: %w", url, err)}
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes: check the chart repository URL", url, limit)
	}
	return data, nil
}

func digestMatches(data []byte, digest string) bool {
	return digest == "" || sha256Hex(data) == digest
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// urlKey names a repository's cache files.
func urlKey(url string) string { return sha256Hex([]byte(url))[:16] }

// writeFileAtomic writes through a temporary file, so a concurrent reader
// never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("create helm cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write helm cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write helm cache %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write helm cache %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write helm cache %s: %w", path, err)
	}
	return nil
}
