package serve

import (
	"context"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// startProxy builds the cluster proxy on the API's own token and session
// checks and starts its re-check and read-count loop; stop ends the loop
// after a last flush.
func startProxy(ctx context.Context, st *store.Store, usage *api.TokenUsage, fleet api.Fleet, log *slog.Logger) (*k8sproxy.Proxy, func()) {
	clusters := k8sproxy.Stored{Store: st}
	if fleet != nil {
		clusters.Fleet = fleet
	}
	px := k8sproxy.New(k8sproxy.Options{Auth: api.ProxyAuth{Store: st, TokenUsage: usage}, Clusters: clusters,
		Audit: st, Log: log.With("component", "k8s-proxy")})
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() { defer close(done); px.Run(runCtx) }()
	return px, func() { cancel(); <-done }
}

// proxyCA is the CA users' kubeconfigs trust for the proxy: the file
// KUBEOPERA_PROXY_CA_FILE names, else, when the server serves TLS, the
// last certificate of its certificate file (the self-signed certificate,
// or the top of the chain it ships); nil over plain HTTP or when a
// public CA is meant (set KUBEOPERA_PROXY_CA_FILE to an empty file).
func proxyCA(c Config) ([]byte, error) {
	if path, ok := c.Getenv("KUBEOPERA_PROXY_CA_FILE"); ok && path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("KUBEOPERA_PROXY_CA_FILE: %w", err)
		}
		return b, nil
	}
	if c.TLSCertFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(c.TLSCertFile)
	if err != nil {
		return nil, fmt.Errorf("read --tls-cert-file: %w", err)
	}
	var last *pem.Block
	for rest := b; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		if blk.Type == "CERTIFICATE" {
			last = blk
		}
	}
	if last == nil {
		return nil, fmt.Errorf("--tls-cert-file %s holds no certificate", c.TLSCertFile)
	}
	return pem.EncodeToMemory(last), nil
}
