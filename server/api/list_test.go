package api

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/ochestra-tech/kubeopera/server/hostclusters"
	"github.com/ochestra-tech/kubeopera/server/store"
)

func seedRows(t *testing.T, e *env, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		row := &store.Cluster{Name: fmt.Sprintf("c-%02d", i), Provider: []string{"aws", "gcp"}[i%2],
			Source: store.SourceConnectedExisting, Status: []string{"Ready", "Pending"}[i%2]}
		if err := e.st.CreateCluster(context.Background(), row); err != nil {
			t.Fatal(err)
		}
		names = append(names, row.Name)
	}
	return names
}

// listAll follows continue tokens over GET /clusters with query q.
func listAll(t *testing.T, e *env, q url.Values) (names []string, pages int) {
	t.Helper()
	for {
		code, body := e.do(http.MethodGet, "/api/v1/clusters?"+q.Encode(), e.viewer, nil)
		mustStatus(t, "list "+q.Encode(), code, body, 200)
		list := decode[clusterList](t, body)
		pages++
		for _, c := range list.Items {
			names = append(names, c.Name)
		}
		if list.Continue == "" {
			return names, pages
		}
		q.Set("continue", list.Continue)
	}
}

func TestListClustersPagesAndFiltersInTheDatabase(t *testing.T) {
	e := newEnv(t, envOpts{})
	all := seedRows(t, e, 12)
	if got, pages := listAll(t, e, url.Values{"limit": {"5"}}); !slices.Equal(got, all) || pages != 3 {
		t.Errorf("limit 5: %d pages of %v, want 3 pages of %v", pages, got, all)
	}
	if got, pages := listAll(t, e, url.Values{}); !slices.Equal(got, all) || pages != 1 {
		t.Errorf("no limit (the shape before paging): %d pages of %v, want every cluster at once", pages, got)
	}
	var gcp []string
	for i, n := range all {
		if i%2 == 1 {
			gcp = append(gcp, n)
		}
	}
	for _, q := range []url.Values{{"provider": {"gcp"}}, {"phase": {"Pending"}}, {"phase": {"Pending"}, "source": {"connected_existing"}}} {
		q.Set("limit", "2")
		if got, _ := listAll(t, e, q); !slices.Equal(got, gcp) {
			t.Errorf("%s: %v, want %v", q.Encode(), got, gcp)
		}
	}
	if got, _ := listAll(t, e, url.Values{"namePrefix": {"c-1"}, "limit": {"100"}}); !slices.Equal(got, []string{"c-10", "c-11"}) {
		t.Errorf("namePrefix c-1: %v", got)
	}
	for q, says := range map[string]string{"limit=0": "limit", "limit=x": "limit", "limit=1001": "limit",
		"limit=5&continue=garbage": "continue", "continue=abc": "continue needs limit"} {
		code, body := e.do(http.MethodGet, "/api/v1/clusters?"+q, e.viewer, nil)
		if code != 400 || !strings.Contains(string(body), says) {
			t.Errorf("%s: %d %s; want 400 naming %q", q, code, body, says)
		}
	}
}

// observingRegistry records what sync-on-read asked the registry.
type observingRegistry struct {
	hostclusters.Registry
	mu       sync.Mutex
	lists    int
	observed [][]string
}

func (o *observingRegistry) List(ctx context.Context) (map[string]hostclusters.Observed, error) {
	o.mu.Lock()
	o.lists++
	o.mu.Unlock()
	return o.Registry.List(ctx)
}

func (o *observingRegistry) Observe(ctx context.Context, ids []string) (map[string]hostclusters.Observed, error) {
	o.mu.Lock()
	o.observed = append(o.observed, slices.Clone(ids))
	o.mu.Unlock()
	return o.Registry.(hostclusters.Observer).Observe(ctx, ids)
}

func TestSyncOnReadOfAPageLooksUpOnlyThatPage(t *testing.T) {
	reg := &observingRegistry{}
	e := newEnv(t, envOpts{management: true, registry: func(r hostclusters.Registry) hostclusters.Registry {
		reg.Registry = r
		return reg
	}})
	ctx := context.Background()
	seedRows(t, e, 4)
	rows, _ := e.st.ListClusters(ctx)
	dyn := dynamic.NewForConfigOrDie(e.sb.Config).Resource(hostclusters.GVR).Namespace(hostclusters.Namespace)
	for _, r := range rows {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kubeopera.io/v1alpha1", "kind": "HostCluster",
			"metadata": map[string]any{"name": r.ID, "namespace": hostclusters.Namespace},
			"spec": map[string]any{"mode": "connect_existing", "provider": r.Provider,
				"connectKubeconfigSecretRef": map[string]any{"name": hostclusters.KubeconfigSecretName(r.ID)}}}}
		if _, err := dyn.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setPhase(t, e, rows[1].ID, "Ready", "synced")
	waitUntil(t, "the phase reaches the cache", func() bool {
		got, _ := reg.Registry.(hostclusters.Observer).Observe(ctx, []string{rows[1].ID})
		return got[rows[1].ID].Phase == "Ready"
	})
	code, body := e.do(http.MethodGet, "/api/v1/clusters?limit=2", e.viewer, nil)
	mustStatus(t, "first page", code, body, 200)
	list := decode[clusterList](t, body)
	if len(list.Items) != 2 || list.Items[1].Status != "Ready" || list.Items[1].Message != "synced" || list.Continue == "" {
		t.Fatalf("first page = %+v", list)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.lists != 0 || len(reg.observed) != 1 || !slices.Equal(reg.observed[0], []string{rows[0].ID, rows[1].ID}) {
		t.Errorf("registry saw %d List calls and Observe calls %v; want one Observe of the page's two IDs", reg.lists, reg.observed)
	}
	if stored, _ := e.st.GetCluster(ctx, rows[1].ID); stored.Status != "Ready" {
		t.Errorf("write-back: stored status %q", stored.Status)
	}
}

// A member's pages hold exactly their teams' clusters: with half of the
// clusters in their team, paging at 3 and at 10 returns that half in
// order, no page short of the limit before the last, none repeated; on
// both databases (PostgreSQL runs the page as its own prepared SQL).
func TestAMembersPagesHoldExactlyTheirTeamsClusters(t *testing.T) {
	for _, pg := range []bool{false, true} {
		t.Run(map[bool]string{false: "sqlite", true: "postgres"}[pg], func(t *testing.T) {
			e := newEnv(t, envOpts{postgres: pg})
			ctx := context.Background()
			if _, err := e.st.CreateTeam(ctx, "team-a"); err != nil {
				t.Fatal(err)
			}
			var mine []string
			for i := range 20 {
				row := &store.Cluster{Name: fmt.Sprintf("c-%02d", i), Provider: "aws", Source: store.SourceConnectedExisting, Status: "Ready"}
				if i%2 == 0 {
					row.Team = "team-a"
					mine = append(mine, row.Name)
				}
				if err := e.st.CreateCluster(ctx, row); err != nil {
					t.Fatal(err)
				}
			}
			token := e.memberToken("pat", Member, Operator)
			for _, limit := range []int{3, 10} {
				var got []string
				q := url.Values{"limit": {fmt.Sprint(limit)}}
				for pages := 1; ; pages++ {
					code, body := e.do(http.MethodGet, "/api/v1/clusters?"+q.Encode(), token, nil)
					mustStatus(t, "list", code, body, 200)
					list := decode[clusterList](t, body)
					for _, c := range list.Items {
						got = append(got, c.Name)
						if c.Team != "team-a" || c.Role != Operator {
							t.Errorf("%s: team %q, role %q; want team-a, operator", c.Name, c.Team, c.Role)
						}
					}
					if list.Continue == "" {
						break
					}
					if len(list.Items) != limit {
						t.Errorf("limit %d: page %d holds %d clusters before the last page", limit, pages, len(list.Items))
					}
					q.Set("continue", list.Continue)
				}
				if !slices.Equal(got, mine) {
					t.Errorf("limit %d: %v, want exactly %v", limit, got, mine)
				}
			}
		})
	}
}

// GET /clusters says before any form whether the caller may bring a
// cluster in, and why not: the server's mode first, then the role.
func TestTheListSaysWhetherClustersCanBeBroughtIn(t *testing.T) {
	serverOnly := newEnv(t, envOpts{})
	code, body := serverOnly.do(http.MethodGet, "/api/v1/clusters", serverOnly.admin, nil)
	mustStatus(t, "list", code, body, 200)
	ob := decode[clusterList](t, body).Onboarding
	if !ob.ServerOnly || ob.Connect.Allowed || !strings.Contains(ob.Connect.Reason, "server-only mode") || ob.Provision != ob.Connect {
		t.Errorf("server-only mode: %+v", ob)
	}
	if ob.RegisterSelf.Allowed || !strings.Contains(ob.RegisterSelf.Reason, "cannot see the cluster it runs in") {
		t.Errorf("server-only mode, register-self: %+v", ob.RegisterSelf)
	}
	if code, body := serverOnly.do(http.MethodPost, "/api/v1/clusters/connect", serverOnly.admin, map[string]string{"name": "x"}); code == http.StatusAccepted {
		t.Errorf("connect in server-only mode answered %d: %s", code, body)
	}

	managed := newEnv(t, envOpts{management: true})
	managed.ensureTeamA(t)
	code, body = managed.do(http.MethodGet, "/api/v1/clusters", managed.admin, nil)
	mustStatus(t, "list", code, body, 200)
	if ob := decode[clusterList](t, body).Onboarding; ob.ServerOnly || !ob.Connect.Allowed || !ob.Provision.Allowed {
		t.Errorf("a platform admin with a management cluster: %+v", ob)
	}
	for role, allowed := range map[Role]bool{Operator: false, Admin: true} {
		token := managed.memberToken("m-"+string(role), Member, role)
		code, body = managed.do(http.MethodGet, "/api/v1/clusters", token, nil)
		mustStatus(t, "list", code, body, 200)
		ob := decode[clusterList](t, body).Onboarding
		if ob.Connect.Allowed != allowed || !allowed && !strings.Contains(ob.Connect.Reason, "needs the admin role on a team") {
			t.Errorf("%s of team-a: %+v, want allowed %v", role, ob.Connect, allowed)
		}
		if ob.RegisterSelf.Allowed {
			t.Errorf("%s of team-a may register the server's own cluster: %+v", role, ob.RegisterSelf)
		}
	}
}
