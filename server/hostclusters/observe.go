package hostclusters

import (
	"context"
)

// Observer is implemented by a Registry that can report on a few
// HostClusters without listing them all. Sync-on-read of one page of the
// clusters list uses it, so its cost follows the page, not the fleet.
type Observer interface {
	// Observe returns the observed state of those of ids that have a
	// HostCluster.
	Observe(ctx context.Context, ids []string) (map[string]Observed, error)
}

// Observe reads ids from the watch cache once StartCache has synced it, one
// lookup each; before that it falls back to List.
func (k *Kube) Observe(ctx context.Context, ids []string) (map[string]Observed, error) {
	out := make(map[string]Observed, len(ids))
	if k.cache == nil || !k.cache.HasSynced() {
		all, err := k.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if o, ok := all[id]; ok {
				out[id] = o
			}
		}
		return out, nil
	}
	store := k.cache.GetStore()
	for _, id := range ids {
		item, ok, err := store.GetByKey(Namespace + "/" + id)
		if err != nil || !ok {
			continue // a cache lookup only fails for a malformed key: no HostCluster
		}
		if e, ok := item.(*entry); ok {
			out[id] = e.Observed
		}
	}
	return out, nil
}
