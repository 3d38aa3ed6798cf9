// Package livecache keeps what live calls to a cluster returned for a few
// seconds, per key (a cluster), with at most one call in flight per key:
// twenty viewers loading the same page at once cost the cluster one call.
// Errors are shared with the callers waiting for them but never kept.
package livecache

import (
	"context"
	"sync"
	"time"
)

// DefaultTTL is how long a page load's answer is reused.
const DefaultTTL = 3 * time.Second

// Cache maps keys to values fetched at most once per TTL.
type Cache[V any] struct {
	ttl     time.Duration
	timeout time.Duration
	mu      sync.Mutex
	entries map[string]*entry[V]
	now     func() time.Time
}

type entry[V any] struct {
	done    chan struct{}
	value   V
	err     error
	fetched time.Time
}

// New returns a cache keeping values for ttl. A fetch runs detached from
// the caller that started it (others may be waiting for it), for at most
// timeout.
func New[V any](ttl, timeout time.Duration) *Cache[V] {
	return &Cache[V]{ttl: ttl, timeout: timeout, entries: map[string]*entry[V]{}, now: time.Now}
}

// Get returns key's value, calling fetch when there is none younger than
// the TTL and no fetch for it is in flight. It stops waiting when ctx ends.
func (c *Cache[V]) Get(ctx context.Context, key string, fetch func(context.Context) (V, error)) (V, error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok || c.expired(e) {
		e = &entry[V]{done: make(chan struct{})}
		c.entries[key] = e
		c.sweep()
		go c.run(ctx, key, e, fetch)
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.value, e.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

func (c *Cache[V]) run(ctx context.Context, key string, e *entry[V], fetch func(context.Context) (V, error)) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
	defer cancel()
	v, err := fetch(fctx)
	c.mu.Lock()
	e.value, e.err, e.fetched = v, err, c.now()
	if err != nil && c.entries[key] == e {
		delete(c.entries, key)
	}
	c.mu.Unlock()
	close(e.done)
}

// expired reports whether a finished entry is older than the TTL; an
// entry in flight is never expired. Called with mu held.
func (c *Cache[V]) expired(e *entry[V]) bool {
	select {
	case <-e.done:
		return c.now().Sub(e.fetched) >= c.ttl
	default:
		return false
	}
}

// sweep drops expired entries, so keys of deleted clusters do not pile up.
// Called with mu held.
func (c *Cache[V]) sweep() {
	for k, e := range c.entries {
		if c.expired(e) {
			delete(c.entries, k)
		}
	}
}
