// Package fleet decides which clusters the multi-cluster overview asks and
// how: the clusters table's rows with a usable kubeconfig (stored on the
// management cluster), the host cluster through the server's own access,
// and the entries of the CLUSTER_REGISTRY setting. It assesses each one with
// the health package.
package fleet

import (
	"context"
	"fmt"
	"github.com/ochestra-tech/kubeopera/server/kubeconfig"
	"os"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/ochestra-tech/kubeopera/server/federation"
	"github.com/ochestra-tech/kubeopera/server/health"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// Kubeconfigs returns stored kubeconfigs: all by cluster ID in one call, or
// one cluster's (nil when it has none yet).
type Kubeconfigs interface {
	Kubeconfigs(ctx context.Context) (map[string][]byte, error)
	Kubeconfig(ctx context.Context, id string) ([]byte, error)
}

// Entry is one CLUSTER_REGISTRY cluster: a name and a kubeconfig file.
type Entry struct {
	Name, Path string
}

// ParseRegistry reads CLUSTER_REGISTRY: comma-separated name=/path/to/kubeconfig.
func ParseRegistry(v string) ([]Entry, error) {
	var out []Entry
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, path, ok := strings.Cut(part, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("CLUSTER_REGISTRY entry %q: want name=/path/to/kubeconfig", part)
		}
		out = append(out, Entry{Name: name, Path: path})
	}
	return out, nil
}

// Source lists the overview's targets.
type Source struct {
	Store *store.Store
	// Stored is nil without a management cluster.
	Stored Kubeconfigs
	// Self reaches the cluster the server runs in; nil when it cannot.
	Self     *rest.Config
	Registry []Entry
}

// Targets returns every cluster with a usable kubeconfig; when there is
// none, the host cluster alone.
func (s Source) Targets(ctx context.Context) ([]federation.Target, error) {
	rows, err := s.Store.ListClusters(ctx)
	if err != nil {
		return nil, err
	}
	stored := map[string][]byte{}
	if s.Stored != nil {
		if stored, err = s.Stored.Kubeconfigs(ctx); err != nil {
			return nil, err
		}
	}
	var out []federation.Target
	for _, r := range rows {
		if t, ok := s.target(r, stored[r.ID]); ok {
			out = append(out, t)
		}
	}
	for _, e := range s.Registry {
		data, err := os.ReadFile(e.Path)
		if err != nil {
			return nil, fmt.Errorf("CLUSTER_REGISTRY %s: %w", e.Name, err)
		}
		cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
		if err != nil {
			return nil, fmt.Errorf("CLUSTER_REGISTRY %s: %w", e.Name, err)
		}
		out = append(out, federation.Target{ID: "registry:" + e.Name, Name: e.Name, Config: cfg})
	}
	if len(out) == 0 && s.Self != nil {
		out = append(out, federation.Target{ID: "host", Name: "host", Config: rest.CopyConfig(s.Self)})
	}
	return out, nil
}

// Target returns how to reach one cluster; false when it has no usable
// kubeconfig yet.
func (s Source) Target(ctx context.Context, row store.Cluster) (federation.Target, bool, error) {
	var data []byte
	if s.Stored != nil && row.Source != store.SourceSelfRegistered {
		var err error
		if data, err = s.Stored.Kubeconfig(ctx, row.ID); err != nil {
			return federation.Target{}, false, err
		}
	}
	t, ok := s.target(row, data)
	return t, ok, nil
}

// target builds a row's Target from the server's own access (the host) or
// its stored kubeconfig.
func (s Source) target(r store.Cluster, kubeconfig []byte) (federation.Target, bool) {
	switch {
	case r.Source == store.SourceSelfRegistered && s.Self != nil:
		return federation.Target{ID: r.ID, Name: r.Name, Status: r.Status, Config: rest.CopyConfig(s.Self)}, true
	case kubeconfig != nil:
		cfg, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
		if err != nil {
			return federation.Target{}, false // validated at connect; one that fails to load is not usable
		}
		return federation.Target{ID: r.ID, Name: r.Name, Status: r.Status, Config: cfg}, true
	}
	return federation.Target{}, false
}

// Assess is the federation Assessor: the health score and node readiness
// of one cluster.
func Assess(ctx context.Context, cfg *rest.Config) (federation.Report, error) {
	// The same rate limits as every other client the server builds for a
	// cluster, not client-go's 5 requests/s.
	cs, err := kubernetes.NewForConfig(kubeconfig.Tune(rest.CopyConfig(cfg)))
	if err != nil {
		return federation.Report{}, fmt.Errorf("create client: %w", err)
	}
	in, err := health.Collect(ctx, cs)
	if err != nil {
		return federation.Report{}, err
	}
	sc := health.Compute(in)
	r := federation.Report{Score: sc.Score, Badge: sc.Badge, NodesTotal: len(in.Nodes), Nodes: in.Nodes,
		CPUPercent: sc.CPUPercent, MemoryPercent: sc.MemoryPercent}
	for i := range in.Nodes {
		if federation.NodeReady(&in.Nodes[i]) {
			r.NodesReady++
		}
	}
	return r, nil
}
