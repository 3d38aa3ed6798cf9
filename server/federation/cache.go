package federation

import (
	"context"
	"sync"
	"time"
)

// Cache shares overviews between viewers: requests that arrive while one
// is being built wait for it instead of asking every cluster again, and a
// built overview is served for its TTL. So the load on each cluster does
// not grow with the number of people watching. Each overview carries the
// stamp of the cluster list it was built from (store.ClustersStamp): one
// whose stamp is no longer the current one is neither served nor joined,
// so no viewer sees a cluster deleted meanwhile, whichever server deleted
// it. The zero value is not usable; call NewCache.
type Cache struct {
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	last     Overview
	stamp    string
	builtAt  time.Time
	have     bool
	inflight *buildCall
}

// buildCall is one fan-out that concurrent viewers share.
type buildCall struct {
	stamp string
	done  chan struct{}
	ov    Overview
	err   error
}

// NewCache returns a Cache that serves an overview for ttl after it was
// built: DefaultCacheTTL when ttl is zero, never when negative.
func NewCache(ttl time.Duration) *Cache {
	if ttl == 0 {
		ttl = DefaultCacheTTL
	}
	return &Cache{ttl: ttl, now: time.Now}
}

// Get returns the cached overview while it is fresh and was built for
// stamp; otherwise it joins the build for stamp in flight or starts one with
// build. A build runs to its end even if the viewer who started it leaves
// (its per-cluster timeouts bound it), so the others still get it; Get
// itself returns when ctx ends. A build that fails is not cached.
func (c *Cache) Get(ctx context.Context, stamp string, build func(context.Context) (Overview, error)) (Overview, error) {
	c.mu.Lock()
	if c.have && c.stamp == stamp && c.now().Sub(c.builtAt) < c.ttl {
		ov := c.last
		c.mu.Unlock()
		return ov, nil
	}
	call := c.inflight
	if call == nil || call.stamp != stamp {
		call = &buildCall{stamp: stamp, done: make(chan struct{})}
		c.inflight = call
		go c.run(context.WithoutCancel(ctx), call, build)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.ov, call.err
	case <-ctx.Done():
		return Overview{}, context.Cause(ctx)
	}
}

func (c *Cache) run(ctx context.Context, call *buildCall, build func(context.Context) (Overview, error)) {
	defer close(call.done)
	call.ov, call.err = build(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	// A build overtaken by one for a newer stamp leaves the cache to it.
	if c.inflight != call {
		return
	}
	c.inflight = nil
	if call.err == nil {
		c.last, c.stamp, c.builtAt, c.have = call.ov, call.stamp, c.now(), true
	}
}
