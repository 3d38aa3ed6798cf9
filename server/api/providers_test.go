package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/host/plugin"
	"github.com/ochestra-tech/kubeopera/sdk"
)

// GET /providers is what a wizard renders from: every declaration of each
// plugin, its health, and the files that were not loaded with the reason.
func TestProvidersListDeclarationsHealthAndSkippedFiles(t *testing.T) {
	e := newEnv(t, envOpts{})
	code, body := e.do(http.MethodGet, "/api/v1/providers", e.viewer, nil)
	mustStatus(t, "list providers", code, body, 200)
	list := decode[providerList](t, body)
	byName := map[string]providerView{}
	for _, p := range list.Items {
		byName[p.Name] = p
	}
	vanilla, ok := byName["aws-vanilla"]
	if !ok {
		t.Fatalf("aws-vanilla not listed: %s", body)
	}
	if !strings.Contains(strings.Join(vanilla.Capabilities, ","), "provision") || vanilla.Health != "ok" ||
		vanilla.RegionInput != "region" || len(vanilla.Topologies) == 0 {
		t.Errorf("aws-vanilla = %+v", vanilla)
	}
	kinds := map[string]credentialKindView{}
	for _, k := range vanilla.CredentialKinds {
		kinds[k.Name] = k
	}
	if k := kinds["access_key"]; k.Last4Field != "accessKeyId" || len(k.Fields) != 2 || !k.Fields[1].Secret {
		t.Errorf("access_key declaration = %+v", k)
	}
	var cred fieldView
	for _, f := range vanilla.Schema {
		if f.Name == "credentialRef" {
			cred = f
		}
	}
	if cred.Type != "credential" || len(cred.CredentialKinds) != 2 {
		t.Errorf("credentialRef = %+v, want a credential reference naming the AWS kinds", cred)
	}
	// The real aws-eks binary declares upgrade: its paths, one minor at
	// a time, reach the list; aws-vanilla scales only, so it lists none.
	if eks := byName["aws-eks"]; len(eks.Upgrades) == 0 || len(eks.Upgrades[0].To) == 0 {
		t.Errorf("aws-eks upgrades = %+v, want its version table's paths", eks.Upgrades)
	}
	if len(vanilla.Upgrades) != 0 {
		t.Errorf("aws-vanilla upgrades = %+v, want none (no upgrade capability)", vanilla.Upgrades)
	}
	if g := byName["gcp-stub"]; g.Availability != "SOON" || len(g.Capabilities) != 0 {
		t.Errorf("gcp-stub = %+v", g)
	}
	if len(list.Skipped) != 1 || list.Skipped[0].Reason != "not a plugin" || !strings.HasSuffix(list.Skipped[0].Path, "README") {
		t.Errorf("skipped = %+v, want the README as not a plugin", list.Skipped)
	}
}

// A plugin's upgrade paths are published only with its "upgrade"
// capability: the Upgrade dialog offers exactly what the host's check
// (sdk.CheckUpgrade) would accept.
func TestProviderViewPublishesUpgradePathsOnlyWithTheCapability(t *testing.T) {
	paths := []sdk.Upgrade{{From: "1.35", To: []string{"1.36"}}, {From: "1.36", To: []string{"1.37"}}}
	with := viewProvider(plugin.Plugin{Name: "p", Info: sdk.Info{Capabilities: []sdk.Capability{sdk.CapUpgrade}, Upgrades: paths}})
	if len(with.Upgrades) != 2 || with.Upgrades[0].From != "1.35" || with.Upgrades[0].To[0] != "1.36" || with.Upgrades[1].To[0] != "1.37" {
		t.Errorf("upgrades = %+v, want 1.35→1.36 and 1.36→1.37", with.Upgrades)
	}
	without := viewProvider(plugin.Plugin{Name: "p", Info: sdk.Info{Upgrades: paths}})
	if without.Upgrades == nil || len(without.Upgrades) != 0 {
		t.Errorf("upgrades without the capability = %#v, want an empty list", without.Upgrades)
	}
}
