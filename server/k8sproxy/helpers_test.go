package k8sproxy_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/ochestra-tech/kubeopera/server/api"
	"github.com/ochestra-tech/kubeopera/server/k8sproxy"
	"github.com/ochestra-tech/kubeopera/server/store"
)

// clusters is a fixed set of targets by ID.
type clusters map[string]k8sproxy.Target

func (c clusters) Cluster(_ context.Context, id string) (k8sproxy.Target, error) {
	t, ok := c[id]
	if !ok {
		return k8sproxy.Target{}, fmt.Errorf("cluster %s: %w", id, k8sproxy.ErrNoCluster)
	}
	return t, nil
}

// proxyEnv is a proxy on a real SQLite store, served on loopback.
type proxyEnv struct {
	st  *store.Store
	px  *k8sproxy.Proxy
	srv *httptest.Server
	// stop ends the proxy's Run loop, which flushes the read counts.
	stop func()
}

func newStore(t testing.TB) *store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "kubeopera.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

// startProxy serves a proxy for targets, re-checking open requests'
// credentials every recheck.
func startProxy(t testing.TB, targets clusters, recheck time.Duration) *proxyEnv {
	t.Helper()
	st := newStore(t)
	for id, target := range targets { // the API's rows: the proxy finds each cluster's team there
		row := &store.Cluster{ID: id, Name: target.Name, Provider: "local", Source: store.SourceConnectedExisting, Status: "Ready"}
		if err := st.CreateCluster(context.Background(), row); err != nil {
			t.Fatal(err)
		}
	}
	px := k8sproxy.New(k8sproxy.Options{Auth: api.ProxyAuth{Store: st}, Clusters: targets, Audit: st, Recheck: recheck,
		ReadFlush: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); px.Run(ctx) }()
	srv := httptest.NewServer(px)
	stop := func() { cancel(); wg.Wait() }
	t.Cleanup(func() { srv.Close(); stop() })
	return &proxyEnv{st: st, px: px, srv: srv, stop: stop}
}

// memberToken makes user name a member of team with role there, and a
// login token of theirs; it returns the token and the user's ID.
func (e *proxyEnv) memberToken(t testing.TB, name, team string, role api.Role) (token, userID string) {
	t.Helper()
	ctx := context.Background()
	u := &store.User{Username: name, Email: name + "@example.com", PasswordHash: "x", Role: api.Member}
	if err := e.st.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := e.st.SetMember(ctx, store.TeamMember{Team: team, UserID: u.ID, Role: role, Source: store.MemberSourceLocal}); err != nil {
		t.Fatal(err)
	}
	token, hash := api.NewToken()
	expires := time.Now().Add(time.Hour)
	if err := e.st.CreateToken(ctx, &store.Token{Name: "kubeconfig:" + name, Role: string(api.Member), Hash: hash, UserID: u.ID, ExpiresAt: &expires}); err != nil {
		t.Fatal(err)
	}
	return token, u.ID
}

// token issues an API token of role named name and returns it.
func (e *proxyEnv) token(t testing.TB, name string, role api.Role) (token, id string) {
	t.Helper()
	token, hash := api.NewToken()
	row := &store.Token{Name: name, Role: string(role), Hash: hash}
	if err := e.st.CreateToken(context.Background(), row); err != nil {
		t.Fatal(err)
	}
	return token, row.ID
}

// config reaches cluster id through the proxy with token.
func (e *proxyEnv) config(id, token string) *rest.Config {
	return &rest.Config{Host: e.srv.URL + k8sproxy.PathPrefix + id, BearerToken: token, QPS: 1000, Burst: 1000}
}
