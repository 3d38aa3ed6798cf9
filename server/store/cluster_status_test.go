package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestUpdateStatusesChangesOnlyTheListedClusters(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		created := clock.Now()
		ids := map[string]string{}
		for _, name := range []string{"a", "b", "untouched"} {
			c := &Cluster{Name: name, Source: SourceConnectedExisting, Status: "pending", Message: "new"}
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
			ids[name] = c.ID
		}
		later := clock.Advance(time.Minute)
		err := s.UpdateStatuses(ctx, []StatusUpdate{
			{ID: ids["a"], Status: "ready", Message: "3/3 nodes ready"},
			{ID: ids["b"], Status: "stale", Message: "superseded"},
			{ID: "deleted-meanwhile", Status: "ready"},
			{ID: ids["b"], Status: "unreachable", Message: "dial tcp: i/o timeout; it's 'quoted'"},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []struct {
			name, status, message string
			updatedAt             time.Time
		}{
			{"a", "ready", "3/3 nodes ready", later},
			{"b", "unreachable", "dial tcp: i/o timeout; it's 'quoted'", later},
			{"untouched", "pending", "new", created},
		} {
			got, err := s.GetCluster(ctx, ids[want.name])
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != want.status || got.Message != want.message || !got.UpdatedAt.Equal(want.updatedAt) {
				t.Errorf("cluster %s: status %q, message %q, updated_at %v; want %q, %q, %v",
					want.name, got.Status, got.Message, got.UpdatedAt, want.status, want.message, want.updatedAt)
			}
			if !got.CreatedAt.Equal(created) {
				t.Errorf("cluster %s: created_at changed to %v", want.name, got.CreatedAt)
			}
		}
	})
}

func TestUpdateStatusesHandlesMoreRowsThanOneBatch(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		n := updateBatchSize + 7
		var updates []StatusUpdate
		for i := range n {
			c := &Cluster{Name: fmt.Sprintf("c%04d", i), Source: SourceConnectedExisting}
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
			updates = append(updates, StatusUpdate{ID: c.ID, Status: "ready", Message: c.Name})
		}
		if err := s.UpdateStatuses(ctx, updates); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListClusters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			if c.Status != "ready" || c.Message != c.Name {
				t.Fatalf("cluster %s: status %q, message %q; want ready, %s", c.Name, c.Status, c.Message, c.Name)
			}
		}
	})
}

func TestUpdateStatusesWithNothingToDoSucceeds(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		if err := s.UpdateStatuses(context.Background(), nil); err != nil {
			t.Errorf("UpdateStatuses(nil) = %v", err)
		}
	})
}

func TestLastUpdatePerIDKeepsTheLaterUpdateInOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []StatusUpdate
		want []StatusUpdate
	}{
		{"distinct ids pass through",
			[]StatusUpdate{{ID: "a", Status: "1"}, {ID: "b", Status: "2"}},
			[]StatusUpdate{{ID: "a", Status: "1"}, {ID: "b", Status: "2"}}},
		{"a repeated id keeps its last update",
			[]StatusUpdate{{ID: "a", Status: "old"}, {ID: "b", Status: "2"}, {ID: "a", Status: "new"}},
			[]StatusUpdate{{ID: "b", Status: "2"}, {ID: "a", Status: "new"}}},
	} {
		if got := lastUpdatePerID(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: lastUpdatePerID = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestUpdateInventory(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		c := &Cluster{Name: "inv", Source: SourceConnectedExisting, Status: "ready"}
		if err := s.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
		later := clock.Advance(time.Hour)
		if err := s.UpdateInventory(ctx, c.ID, "v1.32.0", 7, 6); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetCluster(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.KubernetesVersion != "v1.32.0" || got.NodeCount != 7 || got.ReadyNodeCount != 6 {
			t.Errorf("inventory = %q, %d nodes, %d ready; want v1.32.0, 7, 6", got.KubernetesVersion, got.NodeCount, got.ReadyNodeCount)
		}
		if !got.UpdatedAt.Equal(later) {
			t.Errorf("updated_at = %v, want %v", got.UpdatedAt, later)
		}
		if got.Status != "ready" {
			t.Errorf("status changed to %q", got.Status)
		}
	})
}

func TestUpdateInventoriesChangesOnlyTheListedClusters(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		created := clock.Now()
		n := updateBatchSize + 2 // two statements
		ids := make([]string, n)
		for i := range ids {
			c := &Cluster{Name: fmt.Sprintf("c%04d", i), Source: SourceConnectedExisting, Status: "ready"}
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
			ids[i] = c.ID
		}
		later := clock.Advance(time.Hour)
		var updates []InventoryUpdate
		for i := range n - 1 { // the last stays untouched
			updates = append(updates, InventoryUpdate{ID: ids[i], KubernetesVersion: "v1.32.0", NodeCount: i % 7, ReadyNodeCount: i % 5})
		}
		updates = append(updates, InventoryUpdate{ID: "deleted-meanwhile", KubernetesVersion: "v1.31.0", NodeCount: 1},
			InventoryUpdate{ID: ids[0], KubernetesVersion: "v1.33.1", NodeCount: 9, ReadyNodeCount: 8}) // later wins
		if err := s.UpdateInventories(ctx, updates); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListClusters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]Cluster{}
		for _, c := range list {
			byID[c.ID] = c
		}
		if len(byID) != n {
			t.Fatalf("%d clusters, want %d (no row added for an unknown ID)", len(byID), n)
		}
		for i, id := range ids {
			got := byID[id]
			want := InventoryUpdate{ID: id, KubernetesVersion: "v1.32.0", NodeCount: i % 7, ReadyNodeCount: i % 5}
			wantAt := later
			switch i {
			case 0:
				want = InventoryUpdate{ID: id, KubernetesVersion: "v1.33.1", NodeCount: 9, ReadyNodeCount: 8}
			case n - 1:
				want, wantAt = InventoryUpdate{ID: id}, created
			}
			if (InventoryUpdate{ID: id, KubernetesVersion: got.KubernetesVersion, NodeCount: got.NodeCount, ReadyNodeCount: got.ReadyNodeCount}) != want ||
				!got.UpdatedAt.Equal(wantAt) || got.Status != "ready" {
				t.Fatalf("cluster %d: %q, %d nodes, %d ready, updated %v, status %q; want %+v at %v, status ready",
					i, got.KubernetesVersion, got.NodeCount, got.ReadyNodeCount, got.UpdatedAt, got.Status, want, wantAt)
			}
		}
	})
}
