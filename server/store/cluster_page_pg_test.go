package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// A column added to Cluster or Token must be added to its hand-written
// statement too, or PostgreSQL would leave it empty.
func TestSelectListsMatchTheModels(t *testing.T) {
	s := openForTest(t, sqliteDSNForTest(t))
	for _, m := range []struct {
		model   reflect.Type
		selects string
	}{{reflect.TypeFor[Cluster](), clusterSelect}, {reflect.TypeFor[Token](), tokenSelect}} {
		var want []string
		for _, f := range s.db.Table(m.model).Fields {
			want = append(want, f.Name)
		}
		if got := strings.Split(strings.ReplaceAll(m.selects, "::text", ""), ", "); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the select list reads %v\nthe model's columns are %v", m.model.Name(), got, want)
		}
	}
}

// The prepared PostgreSQL page must return exactly what bun's query
// returns, every field and every filter, and the host flag with it.
func TestListClusterPagePostgresMatchesBun(t *testing.T) {
	s := openForTest(t, testpg.Database(t))
	ctx := context.Background()
	storeCredential(t, s, "cred-1")
	for i := range 7 {
		c := &Cluster{Name: fmt.Sprintf("pg-%d", i), Provider: []string{"aws", "gcp"}[i%2], Region: "eu-west-1",
			Source: []Source{SourceConnectedExisting, SourceProvisioned}[i%2], Status: []string{"Ready", "Failed"}[i%2],
			Message: "msg ü", KubernetesVersion: "v1.31.2", NodeCount: i, ReadyNodeCount: i / 2}
		if i%2 == 1 {
			c.Plugin, c.ClusterUID, c.CredentialID = "gcp-stub", ptr(fmt.Sprintf("uid-%d", i)), ptr("cred-1")
		}
		if err := s.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	filters := []ClusterFilter{{}, {Limit: 3}, {Status: "Ready"}, {Provider: "gcp", Limit: 2},
		{Source: SourceProvisioned}, {NamePrefix: "pg-1"}, {NamePrefix: "x"},
		{Status: "Failed", Provider: "gcp", Source: SourceProvisioned, NamePrefix: "pg", Limit: 1}}
	check := func(wantHost bool) {
		for _, f := range filters {
			for {
				var want []Cluster
				if err := s.listClusterPageBun(ctx, f, cursorOf(t, f.Continue), &want); err != nil {
					t.Fatal(err)
				}
				p, err := s.ListClusterPage(ctx, f)
				if err != nil {
					t.Fatalf("%+v: %v", f, err)
				}
				if f.Limit > 0 && len(want) > f.Limit {
					want = want[:f.Limit]
				}
				if !reflect.DeepEqual(p.Clusters, want) && (len(want) > 0 || len(p.Clusters) > 0) {
					t.Errorf("%+v:\nprepared %+v\nbun      %+v", f, p.Clusters, want)
				}
				if p.HostRegistered != wantHost {
					t.Errorf("%+v: HostRegistered = %v, want %v", f, p.HostRegistered, wantHost)
				}
				if p.Continue == "" {
					break
				}
				f.Continue = p.Continue
			}
		}
	}
	check(false)
	if err := s.CreateCluster(ctx, &Cluster{Name: "home", Source: SourceSelfRegistered, IsHost: true}); err != nil {
		t.Fatal(err)
	}
	check(true)
}

func cursorOf(t *testing.T, token string) *cursor {
	if token == "" {
		return nil
	}
	c, err := decodeCursor(token)
	if err != nil {
		t.Fatal(err)
	}
	return &c
}

// parseTimestamp must read what pgdriver reads, to the location.
func TestParseTimestampMatchesTheDriver(t *testing.T) {
	for _, s := range []string{
		"2026-11-30 21:10:53.931869+00", "2026-11-30 21:10:53.93+00", "2026-11-30 21:10:53.000001+00",
		"2026-11-30 21:10:53+00", "1999-01-01 00:00:00.5+00", "0001-01-01 00:00:00+00",
		"2026-11-30 22:10:53.931869+01", "2026-11-30 16:40:53.1-04:30", "2026-11-30 21:10:53.931869+00:00:00",
		"2026-11-30 21:10:53.931869", "10000-01-01 00:00:00+00", "2026-1x-30 21:10:53+00", "2026-11-30 21:10:53.+00",
	} {
		want, wantErr := pgdriver.ParseTime(s)
		got, err := parseTimestamp(s)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("parseTimestamp(%q) = %v, %v; pgdriver.ParseTime: %v, %v", s, got, err, want, wantErr)
		}
	}
}

// A page confirms the token it was asked for, with rows and without, and
// refuses a revoked or expired one.
func TestListClusterPageConfirmsTheToken(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CreateCluster(ctx, &Cluster{Name: "a", Source: SourceConnectedExisting, Status: "Ready"}); err != nil {
			t.Fatal(err)
		}
		live, revoked := &Token{Name: "live", Role: "viewer", Hash: "h1"}, &Token{Name: "revoked", Role: "viewer", Hash: "h2"}
		past := time.Now().Add(-time.Minute)
		expired := &Token{Name: "expired", Role: "viewer", Hash: "h3", ExpiresAt: &past}
		for _, tok := range []*Token{live, revoked, expired} {
			if err := s.CreateToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.RevokeToken(ctx, revoked.ID, ""); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id   string
			want bool
		}{{live.ID, true}, {revoked.ID, false}, {expired.ID, false}, {"no-such-token", false}} {
			for _, phase := range []string{"", "NoSuchPhase"} { // a page with rows, and an empty one
				p, err := s.ListClusterPage(ctx, ClusterFilter{Status: phase, Limit: 10, ActiveToken: c.id})
				if err != nil {
					t.Fatal(err)
				}
				if p.TokenActive != c.want {
					t.Errorf("token %s, phase %q: TokenActive = %v, want %v", c.id, phase, p.TokenActive, c.want)
				}
			}
		}
		if p, err := s.ListClusterPage(ctx, ClusterFilter{Limit: 10}); err != nil || p.TokenActive || len(p.Clusters) != 1 {
			t.Errorf("a page asked for no token: %+v, %v", p, err)
		}
	})
}

// Each page size is a statement of its own: past maxStmts of them, pages
// are read unprepared, and the cache stops growing.
func TestPageSizesBeyondTheStatementCache(t *testing.T) {
	s := openForTest(t, testpg.Database(t))
	ctx := context.Background()
	for i := range 3 {
		if err := s.CreateCluster(ctx, &Cluster{Name: fmt.Sprintf("c-%d", i), Source: SourceConnectedExisting}); err != nil {
			t.Fatal(err)
		}
	}
	for limit := 1; limit <= maxStmts+8; limit++ {
		p, err := s.ListClusterPage(ctx, ClusterFilter{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(limit, 3); len(p.Clusters) != want || (p.Continue != "") != (limit < 3) {
			t.Fatalf("limit %d: %d rows, continue %q", limit, len(p.Clusters), p.Continue)
		}
	}
	if n := len(s.stmts.m); n != maxStmts {
		t.Errorf("%d statements prepared, want the cap of %d", n, maxStmts)
	}
}
