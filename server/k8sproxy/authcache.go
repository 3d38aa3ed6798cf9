package k8sproxy

import (
	"context"
	"crypto/sha256"
	"net/http"
	"sync"
	"time"
)

// authCacheTTL is how long a bearer token, once authenticated, is believed
// without asking again: a revoked token is refused at most this much
// later, well within the 5 s promised (open requests are re-checked on
// their own, every Options.Recheck).
const authCacheTTL = time.Second

// authCacheEntries bounds the cache; it empties when full.
const authCacheEntries = 4096

// authCache remembers recent bearer-token authentications, so a burst of
// kubectl requests costs one database read a second, not one each.
// Session cookies are not cached: a session's mutating request needs its
// CSRF header checked every time.
type authCache struct {
	mu sync.Mutex
	m  map[[32]byte]cachedIdentity
}

type cachedIdentity struct {
	id    Identity
	until time.Time
}

func newAuthCache() *authCache { return &authCache{m: map[[32]byte]cachedIdentity{}} }

// authenticate is auth.Authenticate through the cache.
func (c *authCache) authenticate(ctx context.Context, auth Authenticator, r *http.Request, cluster string) (Identity, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return auth.Authenticate(ctx, r, cluster)
	}
	key, now := sha256.Sum256([]byte(h+"\x00"+cluster)), time.Now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) && (e.id.Expires.IsZero() || now.Before(e.id.Expires)) {
		return e.id, nil
	}
	id, err := auth.Authenticate(ctx, r, cluster)
	if err != nil {
		return id, err
	}
	c.mu.Lock()
	if len(c.m) >= authCacheEntries {
		clear(c.m)
	}
	c.m[key] = cachedIdentity{id: id, until: now.Add(authCacheTTL)}
	c.mu.Unlock()
	return id, nil
}

// forget drops the cached authentications of credential cred.
func (c *authCache) forget(cred string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if e.id.Credential == cred {
			delete(c.m, k)
		}
	}
}
