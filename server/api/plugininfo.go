package api

import (
	"context"
	"fmt"
	"time"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// pluginInfo is what a cluster's plugin declares, for the cluster's
// actions: info is nil when the cluster has no plugin, or it did not
// answer (missing says why, for a cluster it provisioned).
type pluginInfo struct {
	info    *sdk.Info
	missing string
}

// lacks is the reason an action needing capability c is never offered,
// "" when the plugin has it or is not known.
func (p pluginInfo) lacks(c sdk.Capability, what string) string {
	if p.info == nil || p.info.Has(c) {
		return ""
	}
	return fmt.Sprintf("its provider plugin %s cannot %s", p.info.Name, what)
}

// pluginInfoTimeout bounds how long a list or page waits for a plugin's
// Info; one that does not answer leaves its clusters' changes not allowed
// now, with the reason.
const pluginInfoTimeout = 2 * time.Second

// pluginInfos asks each plugin of rows for its Info once.
func (s *server) pluginInfos(ctx context.Context, rows []store.Cluster) map[string]pluginInfo {
	out := map[string]pluginInfo{}
	for _, r := range rows {
		if r.Plugin == "" || !provisioned(&r) {
			continue
		}
		if _, done := out[r.Plugin]; done {
			continue
		}
		out[r.Plugin] = s.pluginInfo(ctx, r.Plugin)
	}
	return out
}

func (s *server) pluginInfo(ctx context.Context, name string) pluginInfo {
	if s.providers == nil {
		return pluginInfo{missing: fmt.Sprintf("its provider plugin %s is not loaded", name)}
	}
	p, err := s.providers.Provider(name)
	if err != nil {
		return pluginInfo{missing: fmt.Sprintf("its provider plugin %s is not loaded", name)}
	}
	ctx, cancel := context.WithTimeout(ctx, pluginInfoTimeout)
	defer cancel()
	info, err := p.GetInfo(ctx)
	if err != nil {
		return pluginInfo{missing: fmt.Sprintf("its provider plugin %s did not answer: %v", name, err)}
	}
	return pluginInfo{info: &info}
}
