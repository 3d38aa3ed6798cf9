package api

import (
	"fmt"

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

// pluginInfos is what each plugin of rows declares, from the Info the
// plugin host read when it started the plugin (no call to the plugin: a
// list never waits on one), or why there is none.
func (s *server) pluginInfos(rows []store.Cluster) map[string]pluginInfo {
	loaded := map[string]sdk.Info{}
	if s.providers != nil {
		for _, p := range s.providers.Plugins() {
			loaded[p.Name] = p.Info
		}
	}
	out := map[string]pluginInfo{}
	for _, r := range rows {
		if r.Plugin == "" || !provisioned(&r) {
			continue
		}
		if info, ok := loaded[r.Plugin]; ok {
			out[r.Plugin] = pluginInfo{info: &info}
		} else {
			out[r.Plugin] = pluginInfo{missing: fmt.Sprintf("its provider plugin %s is not loaded", r.Plugin)}
		}
	}
	return out
}

// pluginInfo is what the plugin called name declares.
func (s *server) pluginInfo(name string) pluginInfo {
	return s.pluginInfos([]store.Cluster{{Plugin: name, Source: store.SourceProvisioned}})[name]
}
