package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// seedPageClusters creates 25 clusters, three per microsecond so the name
// must break ties, alternating providers, sources and statuses.
func seedPageClusters(t *testing.T, s *Store) []string {
	t.Helper()
	ctx := context.Background()
	clock := useFakeClock(s)
	var want []string
	for i := range 25 {
		if i%3 == 0 {
			clock.Advance(time.Microsecond)
		}
		c := &Cluster{Name: fmt.Sprintf("c-%02d", 24-i), Provider: []string{"aws", "gcp"}[i%2],
			Source: []Source{SourceConnectedExisting, SourceProvisionedEKS}[i%2], Status: []string{"Ready", "Failed", "Pending"}[i%3]}
		if err := s.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ListClusters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range all {
		want = append(want, c.Name)
	}
	return want
}

// pageAll follows continue tokens from the first page to the last.
func pageAll(t *testing.T, s *Store, f ClusterFilter) (names []string, pages int) {
	t.Helper()
	for {
		p, err := s.ListClusterPage(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if f.Limit > 0 && len(p.Clusters) > f.Limit {
			t.Fatalf("page of %d rows, limit %d", len(p.Clusters), f.Limit)
		}
		names = append(names, clusterNames(p.Clusters)...)
		if p.Continue == "" {
			return names, pages
		}
		f.Continue = p.Continue
	}
}

func TestListClusterPageWalksEveryRowOnceInListOrder(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		want := seedPageClusters(t, s)
		for _, limit := range []int{1, 7, 25, 100} {
			got, pages := pageAll(t, s, ClusterFilter{Limit: limit})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("limit %d: pages gave %v, want %v", limit, got, want)
			}
			if wantPages := max((25+limit-1)/limit, 1); pages != wantPages {
				t.Errorf("limit %d: %d pages, want %d", limit, pages, wantPages)
			}
		}
		all, pages := pageAll(t, s, ClusterFilter{})
		if !reflect.DeepEqual(all, want) || pages != 1 {
			t.Errorf("no limit: %d pages of %v, want one page of every cluster", pages, all)
		}
	})
}

func TestListClusterPageFiltersInTheDatabase(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		want := seedPageClusters(t, s)
		ctx := context.Background()
		all, err := s.ListClusters(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			f     ClusterFilter
			match func(Cluster) bool
		}{
			{"status", ClusterFilter{Status: "Failed"}, func(c Cluster) bool { return c.Status == "Failed" }},
			{"provider", ClusterFilter{Provider: "gcp"}, func(c Cluster) bool { return c.Provider == "gcp" }},
			{"source", ClusterFilter{Source: SourceProvisionedEKS}, func(c Cluster) bool { return c.Source == SourceProvisionedEKS }},
			{"prefix", ClusterFilter{NamePrefix: "c-1"}, func(c Cluster) bool { return c.Name[:3] == "c-1" }},
			{"combined", ClusterFilter{Provider: "aws", Status: "Ready"}, func(c Cluster) bool { return c.Provider == "aws" && c.Status == "Ready" }},
			{"prefix with a wildcard", ClusterFilter{NamePrefix: "c_"}, func(Cluster) bool { return false }},
		} {
			var expect []string
			for _, c := range all {
				if tc.match(c) {
					expect = append(expect, c.Name)
				}
			}
			tc.f.Limit = 4
			got, _ := pageAll(t, s, tc.f)
			if !reflect.DeepEqual(got, expect) {
				t.Errorf("%s: got %v, want %v (of %v)", tc.name, got, expect, want)
			}
		}
	})
}

func TestListClusterPageRejectsBadInput(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, tok := range []string{"nonsense", "e30", "!!"} {
			if _, err := s.ListClusterPage(ctx, ClusterFilter{Limit: 10, Continue: tok}); !errors.Is(err, ErrBadContinue) {
				t.Errorf("continue %q: %v, want ErrBadContinue", tok, err)
			}
		}
		if _, err := s.ListClusterPage(ctx, ClusterFilter{Limit: MaxPageSize + 1}); err == nil {
			t.Errorf("limit above MaxPageSize accepted")
		}
	})
}

func TestHostRegistered(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		for _, c := range []*Cluster{{Name: "other", Source: SourceConnectedExisting}, {Name: "home", Source: SourceSelfRegistered, IsHost: true}} {
			ok, err := s.HostRegistered(ctx)
			if err != nil || ok {
				t.Fatalf("HostRegistered before the host row = %v, %v; want false", ok, err)
			}
			if err := s.CreateCluster(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if ok, err := s.HostRegistered(ctx); err != nil || !ok {
			t.Errorf("HostRegistered with a host row = %v, %v; want true", ok, err)
		}
	})
}
