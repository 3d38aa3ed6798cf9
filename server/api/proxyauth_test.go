package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// The proxy accepts the dashboard's session as the API does: the user's
// own name and role, the CSRF token on a change, and no longer once the
// session is signed out.
func TestProxyAuthTakesASessionAsTheAPIDoes(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	u, err := NewUser("dana", "dana@example.com", "a-long-enough-password-1", Viewer)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	cookie, now := randomToken(), time.Now().UTC().Truncate(time.Microsecond)
	sess := &store.Session{IDHash: HashToken(cookie), UserID: u.ID, CSRFToken: "csrf-1", CreatedAt: now, LastSeenAt: now,
		ExpiresAt: now.Add(time.Hour)}
	if err := e.st.CreateSession(ctx, sess); err != nil {
		t.Fatal(err)
	}
	mustCluster(t, e.st, "c1", store.DefaultTeam)
	auth := ProxyAuth{Store: e.st}
	request := func(method, csrf string) *http.Request {
		r := httptest.NewRequest(method, "/k8s/clusters/c1/api/v1/namespaces/default/configmaps", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: cookie})
		if csrf != "" {
			r.Header.Set(csrfHeader, csrf)
		}
		return r
	}
	for _, tc := range []struct {
		name, method, csrf string
		status             int
	}{
		{"a read needs no CSRF token", http.MethodGet, "", 0},
		{"a change without the CSRF token is refused", http.MethodPost, "", http.StatusForbidden},
		{"a change with a wrong CSRF token is refused", http.MethodPost, "csrf-2", http.StatusForbidden},
		{"a change with the session's CSRF token passes", http.MethodPost, "csrf-1", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, err := auth.Authenticate(ctx, request(tc.method, tc.csrf), "c1")
			var rf *k8sproxy.Refusal
			switch {
			case tc.status == 0 && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.status == 0 && (id.User != "dana" || id.Role != string(Viewer) || !id.Expires.Equal(sess.ExpiresAt)):
				t.Errorf("identity %+v, want dana, a viewer, until the session's expiry", id)
			case tc.status != 0 && (!errors.As(err, &rf) || rf.Status != tc.status):
				t.Errorf("got %v, want a %d refusal", err, tc.status)
			}
		})
	}
	id, err := auth.Authenticate(ctx, request(http.MethodGet, ""), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.Valid(ctx, id); !ok || err != nil {
		t.Fatalf("a live session: valid %v, %v", ok, err)
	}
	if err := e.st.DeleteSession(ctx, sess.IDHash); err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.Valid(ctx, id); ok || err != nil {
		t.Errorf("a signed-out session: valid %v, %v; want false", ok, err)
	}
}

// A token a user holds (a login token, a per-user kubeconfig's) is that
// user to the proxy, by username; a script's token is "token:<name>",
// which no username can be; a disabled user's token is refused.
func TestProxyActsAsTheTokensUser(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	u, err := NewUser("erin", "erin@example.com", "a-long-enough-password-1", Viewer)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	expires := time.Now().UTC().Add(time.Hour).Truncate(time.Microsecond)
	mine, mineHash := NewToken()
	if err := e.st.CreateToken(ctx, &store.Token{Name: "kubeconfig:c1:erin", Role: string(Viewer), Hash: mineHash, UserID: u.ID, ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	script, scriptHash := NewToken()
	if err := e.st.CreateToken(ctx, &store.Token{Name: "erin", Role: string(Viewer), Hash: scriptHash}); err != nil {
		t.Fatal(err)
	}
	mustCluster(t, e.st, "c1", store.DefaultTeam)
	auth := ProxyAuth{Store: e.st}
	as := func(token string) (k8sproxy.Identity, error) {
		r := httptest.NewRequest(http.MethodGet, "/k8s/clusters/c1/api/v1/pods", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		return auth.Authenticate(ctx, r, "c1")
	}
	if id, err := as(mine); err != nil || id.User != "erin" {
		t.Errorf("a user's token: %+v, %v; want user erin", id, err)
	}
	if id, err := as(script); err != nil || id.User != "token:erin" {
		t.Errorf("a script's token named like a user: %+v, %v; want token:erin, never erin", id, err)
	}
	if err := e.st.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := as(mine); err == nil {
		t.Error("the token of a deleted user still authenticates")
	}
}

func mustCluster(t *testing.T, st *store.Store, id, team string) {
	t.Helper()
	c := &store.Cluster{ID: id, Name: "cluster-" + id, Team: team, Provider: "local", Source: store.SourceProvisioned, Plugin: "local"}
	if err := st.CreateCluster(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

// On a managed cluster the proxy gives a member the role of their team
// there, hides the clusters of other teams, and finds the identity no
// longer valid once the membership changes: an open watch ends then.
func TestProxyRoleIsTheTeamRoleOnTheCluster(t *testing.T) {
	e := newEnv(t, envOpts{})
	ctx := context.Background()
	if _, err := e.st.CreateTeam(ctx, "team-a"); err != nil {
		t.Fatal(err)
	}
	mustCluster(t, e.st, "a1", "team-a")
	mustCluster(t, e.st, "d1", store.DefaultTeam)
	u, err := NewUser("finn", "finn@example.com", "a-long-enough-password-1", Member)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetMember(ctx, store.TeamMember{Team: "team-a", UserID: u.ID, Role: Operator, Source: store.MemberSourceLocal}); err != nil {
		t.Fatal(err)
	}
	expires := time.Now().UTC().Add(time.Hour).Truncate(time.Microsecond)
	tok, hash := NewToken()
	if err := e.st.CreateToken(ctx, &store.Token{Name: "kubeconfig:a1:finn", Role: string(Member), Hash: hash, UserID: u.ID, ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	auth := ProxyAuth{Store: e.st}
	as := func(cluster string) (k8sproxy.Identity, error) {
		r := httptest.NewRequest(http.MethodGet, "/k8s/clusters/"+cluster+"/api/v1/pods", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		return auth.Authenticate(ctx, r, cluster)
	}
	id, err := as("a1")
	if err != nil || id.Role != string(Operator) {
		t.Fatalf("on team-a's cluster: %+v, %v; want the operator role", id, err)
	}
	var rf *k8sproxy.Refusal
	if _, err := as("d1"); !errors.As(err, &rf) || rf.Status != http.StatusNotFound {
		t.Errorf("on another team's cluster: %v, want 404", err)
	}
	if ok, err := auth.Valid(ctx, id); !ok || err != nil {
		t.Fatalf("before the change: valid %v, %v", ok, err)
	}
	if err := e.st.SetMember(ctx, store.TeamMember{Team: "team-a", UserID: u.ID, Role: Viewer, Source: store.MemberSourceLocal}); err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.Valid(ctx, id); ok || err != nil {
		t.Errorf("after the role went down to viewer: valid %v, %v; want false", ok, err)
	}
}
