package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// A token that the principal cache admits to GET /clusters is refused the
// moment it is revoked, whichever way: through the API, or in the database
// as 'kubeopera tokens revoke' and other servers do; on a page with rows,
// on an empty page, and on a request the route rejects anyway.
func TestCachedTokenIsRefusedOnceRevoked(t *testing.T) {
	for _, db := range []struct {
		name     string
		postgres bool
	}{{"sqlite", false}, {"postgres", true}} {
		t.Run(db.name, func(t *testing.T) {
			e := newEnv(t, envOpts{postgres: db.postgres})
			s, app := newServer(Deps{Store: e.st, Keyring: e.keys, Providers: sharedHost(t), Logger: loggerTo(e.logs)})
			e.app = app
			ctx := context.Background()
			if err := e.st.CreateCluster(ctx, &store.Cluster{Name: "a", Source: store.SourceConnectedExisting, Status: "Ready"}); err != nil {
				t.Fatal(err)
			}
			byAPI := func(id string) {
				code, body := e.do(http.MethodDelete, "/api/v1/tokens/"+id, e.admin, nil)
				mustStatus(t, "revoke", code, body, 204)
			}
			inDB := func(id string) {
				if _, err := e.st.RevokeToken(ctx, id, ""); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range []struct {
				query  string
				status int
				revoke func(id string)
			}{
				{"?limit=10", 200, byAPI}, {"?limit=10", 200, inDB}, {"?phase=Failed&limit=10", 200, inDB}, {"?phase=NoSuch&limit=10", 400, inDB},
				{"", 200, inDB}, {"?limit=0", 400, inDB}, {"?limit=10&continue=bogus", 400, inDB},
			} {
				tok := e.token(Viewer)
				for i := range 2 { // the second is admitted from the cache
					code, body := e.do(http.MethodGet, "/api/v1/clusters"+c.query, tok, nil)
					mustStatus(t, c.query, code, body, c.status)
					if _, cached := s.principals.get(HashToken(tok), time.Now()); !cached {
						t.Fatalf("%s, request %d: the token is not cached", c.query, i)
					}
				}
				rows, err := e.st.ListTokens(ctx)
				if err != nil {
					t.Fatal(err)
				}
				c.revoke(rows[len(rows)-1].ID)
				code, body := e.do(http.MethodGet, "/api/v1/clusters"+c.query, tok, nil)
				if code != 401 || !strings.Contains(string(body), "revoked") {
					t.Errorf("%s: a revoked token admitted from the cache got %d %s", c.query, code, body)
				}
				if _, cached := s.principals.get(HashToken(tok), time.Now()); cached {
					t.Errorf("%s: the refused token is still cached", c.query)
				}
			}
		})
	}
}
