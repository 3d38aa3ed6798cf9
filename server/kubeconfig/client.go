package kubeconfig

import "k8s.io/client-go/rest"

// Rate limits of the clients the server builds for clusters. client-go's
// defaults (5 requests/s, burst 10) queue a page load behind a handful of
// viewers; these leave the API server's own priority and fairness to
// protect it.
const (
	ClientQPS   = 50
	ClientBurst = 100
)

// Tune returns a copy of cfg with the server's client rate limits where
// cfg sets none.
func Tune(cfg *rest.Config) *rest.Config {
	if cfg == nil {
		return nil
	}
	out := rest.CopyConfig(cfg)
	if out.QPS == 0 {
		out.QPS = ClientQPS
	}
	if out.Burst == 0 {
		out.Burst = ClientBurst
	}
	return out
}
