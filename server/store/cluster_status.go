package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// StatusUpdate is a new status and message for the cluster with ID.
type StatusUpdate struct {
	ID      string
	Status  string
	Message string
}

// updateBatchSize bounds the rows of one UPDATE statement, keeping each
// statement well inside the databases' length limits.
const updateBatchSize = 500

// UpdateStatuses writes the given statuses and bumps updated_at on those
// clusters only, in one transaction. IDs of clusters that no longer exist
// are skipped: a cluster deleted while its status was being read has no
// status to keep. When an ID appears twice, the later update wins.
func (s *Store) UpdateStatuses(ctx context.Context, updates []StatusUpdate) error {
	updates = lastUpdatePerID(updates)
	if len(updates) == 0 {
		return nil
	}
	err := s.updateInBatches(ctx, updateStatusesSQL, statusRows(updates))
	if err != nil {
		return fmt.Errorf("update statuses of %d clusters: %w", len(updates), err)
	}
	return nil
}

// updateInBatches runs query, an UPDATE taking a VALUES list and the
// updated_at time, over rows updateBatchSize at a time, in one transaction.
func (s *Store) updateInBatches(ctx context.Context, query string, rows []bun.TupleValues) error {
	at := s.now()
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for start := 0; start < len(rows); start += updateBatchSize {
			if _, err := tx.NewRaw(query, bun.List(rows[start:min(start+updateBatchSize, len(rows))]), at).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// updateStatusesSQL updates many rows in one statement. It is valid on both
// databases: a CTE names the VALUES columns (SQLite cannot alias them
// otherwise) and UPDATE ... FROM joins it (SQLite 3.33 and later).
const updateStatusesSQL = `WITH v (id, status, message) AS (VALUES ?)
UPDATE clusters SET status = v.status, message = v.message, updated_at = ?
FROM v WHERE clusters.id = v.id`

// statusRows renders updates as the rows of a VALUES list.
func statusRows(updates []StatusUpdate) []bun.TupleValues {
	rows := make([]bun.TupleValues, len(updates))
	for i, u := range updates {
		rows[i] = bun.Tuple([]any{u.ID, u.Status, u.Message})
	}
	return rows
}

// lastUpdatePerID drops every update superseded by a later one for the same
// cluster, since an UPDATE joining two source rows to one target row applies
// an arbitrary one of them.
func lastUpdatePerID[U interface{ id() string }](updates []U) []U {
	last := make(map[string]int, len(updates))
	for i, u := range updates {
		last[u.id()] = i
	}
	if len(last) == len(updates) {
		return updates
	}
	out := make([]U, 0, len(last))
	for i, u := range updates {
		if last[u.id()] == i {
			out = append(out, u)
		}
	}
	return out
}

func (u StatusUpdate) id() string { return u.ID }

// InventoryUpdate is what the cluster with ID was last seen running.
type InventoryUpdate struct {
	ID                string
	KubernetesVersion string
	NodeCount         int
	ReadyNodeCount    int
}

func (u InventoryUpdate) id() string { return u.ID }

// UpdateInventories is UpdateInventory for many clusters, in one
// transaction of statements of up to updateBatchSize rows: a page read
// just after the controller refreshed a fleet's inventory wrote its 100
// rows one round trip each. IDs of clusters that no longer exist are
// skipped; when an ID appears twice, the later update wins.
func (s *Store) UpdateInventories(ctx context.Context, updates []InventoryUpdate) error {
	updates = lastUpdatePerID(updates)
	if len(updates) == 0 {
		return nil
	}
	rows := make([]bun.TupleValues, len(updates))
	for i, u := range updates {
		rows[i] = bun.Tuple([]any{u.ID, u.KubernetesVersion, u.NodeCount, u.ReadyNodeCount})
	}
	err := s.updateInBatches(ctx, updateInventoriesSQL, rows)
	if err != nil {
		return fmt.Errorf("update inventory of %d clusters: %w", len(updates), err)
	}
	return nil
}

// updateInventoriesSQL is updateStatusesSQL for the inventory columns.
const updateInventoriesSQL = `WITH v (id, kubernetes_version, node_count, ready_node_count) AS (VALUES ?)
UPDATE clusters SET kubernetes_version = v.kubernetes_version, node_count = v.node_count,
ready_node_count = v.ready_node_count, updated_at = ?
FROM v WHERE clusters.id = v.id`

// UpdateInventory records what the cluster with the given ID was last seen
// running: its Kubernetes version and how many of its nodes are ready.
func (s *Store) UpdateInventory(ctx context.Context, id, kubernetesVersion string, nodeCount, readyNodeCount int) error {
	res, err := s.db.NewUpdate().Model((*Cluster)(nil)).
		Set("kubernetes_version = ?", kubernetesVersion).
		Set("node_count = ?", nodeCount).
		Set("ready_node_count = ?", readyNodeCount).
		Set("updated_at = ?", s.now()).
		Where("id = ?", id).
		Exec(ctx)
	return oneRow(res, err, fmt.Sprintf("update inventory of cluster %q", id), fmt.Sprintf("cluster %q", id))
}
