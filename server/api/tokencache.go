package api

import (
	"net/http"
	"sync"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// Bounds of principalCache: how long an entry is used and how many are
// kept (the cache empties when full rather than tracking use).
const (
	principalTTL     = time.Minute
	principalEntries = 4096
)

// confirmsToken lists the routes whose handler confirms a bearer token in
// its own statement (tokenToConfirm, confirmToken), which authorize may
// therefore admit on a cached principal.
var confirmsToken = map[string]bool{http.MethodGet + " /api/v1/clusters": true}

// principalCache remembers whom a bearer token's hash authenticated, so
// that a route which confirms the token in its own statement (GET
// /clusters: the page is read with TokenActive) skips the lookup round trip
// before it, a third of the database work of such a request. An entry never
// admits a request by itself: the route refuses the request when its
// statement finds the token revoked or expired, and the entry goes with it.
// A token's ID, name and role never change, so an entry cannot be wrong
// about them.
type principalCache struct {
	mu sync.Mutex
	m  map[string]cachedPrincipal
}

type cachedPrincipal struct {
	p       principal
	expires *time.Time
	until   time.Time
}

func newPrincipalCache() *principalCache {
	return &principalCache{m: map[string]cachedPrincipal{}}
}

// get returns the principal of the token with this hash, if it is cached,
// and the token had not expired by now.
func (c *principalCache) get(hash string, now time.Time) (principal, bool) {
	c.mu.Lock()
	e, ok := c.m[hash]
	c.mu.Unlock()
	if !ok || now.After(e.until) || (e.expires != nil && !now.Before(*e.expires)) {
		return principal{}, false
	}
	return e.p, true
}

// put remembers the principal of an active token.
func (c *principalCache) put(hash string, t *store.Token, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= principalEntries {
		clear(c.m)
	}
	c.m[hash] = cachedPrincipal{p: principal{TokenID: t.ID, Name: t.Name, Role: Role(t.Role), UserID: t.UserID}, expires: t.ExpiresAt,
		until: now.Add(principalTTL)}
}

// drop forgets the token with this hash.
func (c *principalCache) drop(hash string) {
	c.mu.Lock()
	delete(c.m, hash)
	c.mu.Unlock()
}
