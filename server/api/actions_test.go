package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ochestra-tech/kubeopera/sdk"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// A cluster's actions follow the caller's role and the phase, with the
// reason the request itself would be refused for.
func TestActionsFollowTheRoleAndThePhase(t *testing.T) {
	provisionedIn := func(phase string) *store.Cluster {
		return &store.Cluster{Name: "c", Team: "team-a", Source: store.SourceProvisioned, Plugin: "local", Status: phase}
	}
	connected := &store.Cluster{Name: "c", Team: "team-a", Source: store.SourceConnectedExisting, Status: "Ready"}
	for _, tc := range []struct {
		name string
		row  *store.Cluster
		role Role
		want map[string]string // action -> "" when allowed, else a part of the reason
	}{
		{"viewer of a Ready cluster", provisionedIn("Ready"), Viewer, map[string]string{
			"scale": "needs the operator role on team \"team-a\"", "retry": "needs the operator role", "teardown": "needs the admin role",
			"disconnect": "needs the admin role", "kubeconfig": "", "adminKubeconfig": "needs the platform-admin role"}},
		{"operator of a Ready cluster", provisionedIn("Ready"), Operator, map[string]string{
			"scale": "", "upgrade": "", "retry": "not Failed", "teardown": "needs the admin role", "kubeconfig": ""}},
		{"operator of a Failed cluster", provisionedIn("Failed"), Operator, map[string]string{
			"scale": "change it once it is Ready", "retry": ""}},
		{"admin of a provisioning cluster", provisionedIn("Provisioning"), Admin, map[string]string{
			"teardown": "", "disconnect": "still being provisioned", "scale": "change it once it is Ready"}},
		{"admin of a cluster tearing down", provisionedIn("TearingDown"), Admin, map[string]string{
			"teardown": "it is being torn down already", "disconnect": "still being torn down", "retry": "not Failed"}},
		{"admin of an Updating cluster", provisionedIn("Updating"), Admin, map[string]string{
			"teardown": "a change of its nodes or version is running"}},
		{"admin of a connected cluster", connected, Admin, map[string]string{
			"scale": "did not provision it", "teardown": "disconnect it instead", "disconnect": ""}},
		{"platform admin", provisionedIn("Ready"), PlatformAdmin, map[string]string{
			"scale": "", "teardown": "", "disconnect": "", "adminKubeconfig": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := actionsFor(tc.row, tc.role, pluginInfo{})
			got := map[string]action{"scale": {Allowed: a.Scale.Allowed, Reason: a.Scale.Reason},
				"upgrade": {Allowed: a.Upgrade.Allowed, Reason: a.Upgrade.Reason}, "retry": a.Retry, "teardown": a.Teardown,
				"disconnect": a.Disconnect, "kubeconfig": a.Kubeconfig, "adminKubeconfig": a.AdminKubeconfig}
			for name, want := range tc.want {
				g := got[name]
				switch {
				case want == "" && (!g.Allowed || g.Reason != ""):
					t.Errorf("%s: %+v, want allowed", name, g)
				case want != "" && (g.Allowed || !strings.Contains(g.Reason, want)):
					t.Errorf("%s: %+v, want refused for %q", name, g, want)
				}
			}
		})
	}
}

// What the list says a caller may not do, the route refuses: a viewer's
// teardown action and the teardown route both say it needs the admin role.
func TestActionsAgreeWithTheRoutes(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.ensureTeamA(t)
	row := &store.Cluster{Name: "made", Team: "team-a", Provider: "local", Source: store.SourceProvisioned, Plugin: "local", Status: "Ready"}
	if err := e.st.CreateCluster(t.Context(), row); err != nil {
		t.Fatal(err)
	}
	token := e.memberToken("vic", Member, Viewer)
	code, body := e.do(http.MethodGet, "/api/v1/clusters", token, nil)
	mustStatus(t, "list", code, body, 200)
	list := decode[clusterList](t, body)
	if len(list.Items) != 1 || list.Items[0].Actions == nil {
		t.Fatalf("list: %s", body)
	}
	a := list.Items[0].Actions.Teardown
	code, body = e.do(http.MethodPost, "/api/v1/clusters/"+row.ID+"/teardown", token, `{"confirmName":"made"}`)
	detail := decode[Problem](t, body).Detail
	if a.Allowed || code != http.StatusForbidden || !strings.Contains(detail, "needs the admin role on team \"team-a\"") ||
		!strings.Contains(a.Reason, "needs the admin role on team \"team-a\"") {
		t.Errorf("teardown action %+v; the route answered %d %s", a, code, body)
	}
}

// What the cluster's plugin declares shapes its actions as the handlers
// check it (sdk.CheckNodeCount, sdk.CheckUpgrade): scale carries the node
// bounds, upgrade the versions offered from the cluster's version, and a
// capability the plugin lacks is never offered; a plugin that does not
// answer leaves the changes offered but not allowed now, with the reason.
func TestActionsCarryWhatThePluginDeclares(t *testing.T) {
	row := &store.Cluster{Name: "c", Team: "team-a", Source: store.SourceProvisioned, Plugin: "p", Status: "Ready",
		KubernetesVersion: "v1.36.2"}
	full := &sdk.Info{Name: "p", Capabilities: []sdk.Capability{sdk.CapScale, sdk.CapUpgrade, sdk.CapDestroy}, NodeCountInput: "n",
		Schema:   []sdk.InputField{{Name: "n", Type: sdk.Int, Min: sdk.Bound(2), Max: sdk.Bound(9)}},
		Upgrades: []sdk.Upgrade{{From: "1.36", To: []string{"1.37"}}}}
	a := actionsFor(row, Admin, pluginInfo{info: full})
	if !a.Scale.Allowed || a.Scale.Min != 2 || a.Scale.Max != 9 {
		t.Errorf("scale %+v, want allowed with bounds 2..9", a.Scale)
	}
	if !a.Upgrade.Allowed || len(a.Upgrade.Targets) != 1 || a.Upgrade.Targets[0] != "1.37" {
		t.Errorf("upgrade %+v, want allowed to 1.37", a.Upgrade)
	}
	// The bounds and targets offered are the ones the PATCH takes.
	n := a.Scale.Max
	if err := checkUpdate(*full, row, updateRequest{NodeCount: &n, KubernetesVersion: a.Upgrade.Targets[0]}); err != nil {
		t.Errorf("the PATCH refuses what the actions offer: %v", err)
	}

	bare := &sdk.Info{Name: "p"}
	a = actionsFor(row, Admin, pluginInfo{info: bare})
	for name, got := range map[string]action{"scale": {Allowed: a.Scale.Allowed, Offered: a.Scale.Offered, Reason: a.Scale.Reason},
		"upgrade": {Allowed: a.Upgrade.Allowed, Offered: a.Upgrade.Offered, Reason: a.Upgrade.Reason}, "teardown": a.Teardown} {
		if got.Allowed || got.Offered || !strings.Contains(got.Reason, "its provider plugin p cannot") {
			t.Errorf("%s with a plugin without the capability: %+v, want never offered, with the reason", name, got)
		}
	}

	old := *row
	old.KubernetesVersion = "v1.35.0"
	if a := actionsFor(&old, Admin, pluginInfo{info: full}); a.Upgrade.Allowed || !a.Upgrade.Offered ||
		!strings.Contains(a.Upgrade.Reason, "no upgrade from v1.35.0") {
		t.Errorf("upgrade from a version without a path: %+v, want offered, not allowed, with the reason", a.Upgrade)
	}

	a = actionsFor(row, Admin, pluginInfo{missing: "its provider plugin p did not answer: EOF"})
	if a.Scale.Allowed || !a.Scale.Offered || !strings.Contains(a.Scale.Reason, "did not answer") {
		t.Errorf("scale while the plugin does not answer: %+v, want offered, not allowed now", a.Scale)
	}
	if !a.Teardown.Allowed {
		t.Errorf("teardown while the plugin does not answer: %+v, want allowed (the controller retries the Destroy)", a.Teardown)
	}
}
