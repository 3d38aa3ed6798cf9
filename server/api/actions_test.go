package api

import (
	"net/http"
	"strings"
	"testing"

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
			a := actionsFor(tc.row, tc.role)
			got := map[string]action{"scale": a.Scale, "upgrade": a.Upgrade, "retry": a.Retry, "teardown": a.Teardown,
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
