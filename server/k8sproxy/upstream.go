package k8sproxy

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/client-go/rest"
)

// Target is one cluster as KubeOpera reaches it.
type Target struct {
	Name string
	// Config is KubeOpera's own credential for the cluster: the stored
	// kubeconfig the controller uses (for EKS, the token it refreshes).
	Config *rest.Config
}

// ErrNoCluster is what Clusters returns for an ID that names no cluster
// the proxy can reach.
var ErrNoCluster = errors.New("no such cluster")

// Clusters finds how to reach a cluster by its ID.
type Clusters interface {
	// Cluster returns the target of id; an error wrapping ErrNoCluster when
	// there is none or it has no usable kubeconfig yet.
	Cluster(ctx context.Context, id string) (Target, error)
}

// upstream is a cluster's API server with the transports that carry
// KubeOpera's credential to it.
type upstream struct {
	name string
	base *url.URL
	// transport carries ordinary requests; upgrade dials and authenticates
	// SPDY and WebSocket upgrades.
	transport http.RoundTripper
	upgrade   proxy.UpgradeRequestRoundTripper
}

// newUpstream builds the transports of cfg: TLS verified exactly as
// client-go (and so the controller) verifies it, the credential added by
// client-go's own wrappers (token, client certificate, exec plugin).
func newUpstream(name string, cfg *rest.Config) (*upstream, error) {
	base, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: server URL: %w", name, err)
	}
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: TLS: %w", name, err)
	}
	tr := utilnet.SetTransportDefaults(&http.Transport{TLSClientConfig: tlsConfig, Proxy: cfg.Proxy,
		MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second})
	if cfg.Proxy == nil {
		tr.Proxy = http.ProxyFromEnvironment
	}
	authed, err := rest.HTTPWrappersForConfig(cfg, tr)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: credential: %w", name, err)
	}
	// An upgrade is dialled by hand (DialURL, HTTP/1.1 on tr's TLS); the
	// same wrappers over MirrorRequest only add the credential to it.
	addCredential, err := rest.HTTPWrappersForConfig(cfg, proxy.MirrorRequest)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: credential: %w", name, err)
	}
	return &upstream{name: name, base: base, transport: authed,
		upgrade: proxy.NewUpgradeRequestRoundTripper(tr, addCredential)}, nil
}

// location is where rest (an API server path) and query go on the target.
func (u *upstream) location(rest, rawQuery string) *url.URL {
	loc := *u.base
	loc.Path = singleSlash(loc.Path, rest)
	loc.RawPath = ""
	loc.RawQuery = rawQuery
	return &loc
}

func singleSlash(a, b string) string {
	switch {
	case a == "" || a == "/":
		return b
	case a[len(a)-1] == '/' && b != "" && b[0] == '/':
		return a + b[1:]
	}
	return a + b
}

// upstreamTTL is how long a cluster's target is reused before it is read
// again: a refreshed EKS token or a disconnect is seen this soon.
const upstreamTTL = 5 * time.Second

// upstreams caches each cluster's transports, rebuilding them only when
// its kubeconfig changed, so connections to the target are reused.
type upstreams struct {
	clusters Clusters
	mu       sync.Mutex
	m        map[string]cachedUpstream
	now      func() time.Time
}

type cachedUpstream struct {
	u       *upstream
	version [32]byte
	until   time.Time
}

func newUpstreams(c Clusters) *upstreams {
	return &upstreams{clusters: c, m: map[string]cachedUpstream{}, now: time.Now}
}

// get returns the upstream of cluster id.
func (s *upstreams) get(ctx context.Context, id string) (*upstream, error) {
	now := s.now()
	s.mu.Lock()
	c, ok := s.m[id]
	s.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.u, nil
	}
	t, err := s.clusters.Cluster(ctx, id)
	if err != nil {
		s.mu.Lock()
		delete(s.m, id)
		s.mu.Unlock()
		return nil, err
	}
	v := configVersion(t.Config)
	if !ok || v != c.version {
		if c.u, err = newUpstream(t.Name, t.Config); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	s.m[id] = cachedUpstream{u: c.u, version: v, until: now.Add(upstreamTTL)}
	s.mu.Unlock()
	return c.u, nil
}

// configVersion fingerprints what decides the transports of cfg.
func configVersion(cfg *rest.Config) [32]byte {
	h := sha256.New()
	for _, b := range [][]byte{[]byte(cfg.Host), []byte(cfg.APIPath), []byte(cfg.BearerToken), []byte(cfg.BearerTokenFile),
		cfg.CAData, []byte(cfg.CAFile), cfg.CertData, []byte(cfg.CertFile), cfg.KeyData, []byte(cfg.KeyFile),
		[]byte(cfg.ServerName), []byte(cfg.Username), []byte(cfg.Password), []byte(fmt.Sprint(cfg.Insecure)),
		[]byte(fmt.Sprintf("%+v", cfg.ExecProvider))} {
		h.Write(b)
		h.Write([]byte{0})
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}
