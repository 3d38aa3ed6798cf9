package inspect

import (
	"context"
	"time"

	"github.com/ochestra-tech/kubeopera/server/livecache"
)

// Cached is an Inspector whose answers are kept for a few seconds, with one
// call in flight at a time: the node breakdown on every page load of the
// host cluster costs the cluster one list per TTL however many viewers
// there are.
type Cached struct {
	in        Inspector
	inventory *livecache.Cache[Inventory]
	nodes     *livecache.Cache[[]NodeInfo]
}

// callTimeout bounds one shared call to the cluster.
const callTimeout = 30 * time.Second

// NewCached caches in's answers for ttl.
func NewCached(in Inspector, ttl time.Duration) *Cached {
	return &Cached{in: in, inventory: livecache.New[Inventory](ttl, callTimeout),
		nodes: livecache.New[[]NodeInfo](ttl, callTimeout)}
}

// Inspect is Inspector.Inspect, shared for the TTL.
func (c *Cached) Inspect(ctx context.Context) (Inventory, error) {
	return c.inventory.Get(ctx, "", c.in.Inspect)
}

// Nodes is Inspector.Nodes, shared for the TTL. Callers must not modify
// the slice.
func (c *Cached) Nodes(ctx context.Context) ([]NodeInfo, error) {
	return c.nodes.Get(ctx, "", c.in.Nodes)
}
