package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// MaxPageSize is the most clusters one page may hold.
const MaxPageSize = 1000

// ErrBadContinue is wrapped by the error for a continue token that this
// store did not hand out (or that was changed on the way).
var ErrBadContinue = errors.New("invalid continue token")

// ClusterFilter selects and pages clusters. Every field is optional; the
// filters combine with AND.
type ClusterFilter struct {
	// Status, Provider and Source match their columns exactly.
	Status   string
	Provider string
	Source   Source
	// NamePrefix matches names that start with it.
	NamePrefix string
	// Team matches the owning team exactly.
	Team string
	// MemberOf, a user's ID, keeps only clusters of the teams that user
	// belongs to: the page of a caller without a global role that reads
	// every team. The membership is read by the page's own statement, so
	// a membership removed a moment before is not seen.
	MemberOf string
	// Limit caps the page (at most MaxPageSize); 0 means every match.
	Limit int
	// Continue is the token of the previous page; "" starts at the first.
	Continue string
	// ActiveToken, when set, is the ID of an API token whose validity the
	// page confirms as it is read (ClusterPage.TokenActive): on PostgreSQL
	// in the page's own statement, saving the request a round trip.
	ActiveToken string
}

// ClusterPage is one page of clusters, in ListClusters order.
type ClusterPage struct {
	Clusters []Cluster
	// Continue fetches the next page; "" when this page is the last.
	Continue string
	// HostRegistered is HostRegistered's answer, read with the page.
	HostRegistered bool
	// TokenActive is TokenActive's answer for ClusterFilter.ActiveToken,
	// read with the page; false when none was asked for.
	TokenActive bool
}

// cursor is the position after the last row of a page: the ordering
// columns, which are unique together because names are.
type cursor struct {
	CreatedAt time.Time `json:"c"`
	Name      string    `json:"n"`
}

// ListClusterPage returns the clusters matching f, ordered as ListClusters
// orders them. Filtering and paging happen in the database: a page costs
// the same however many clusters there are (indexes from migration
// 20260501000001).
func (s *Store) ListClusterPage(ctx context.Context, f ClusterFilter) (ClusterPage, error) {
	if f.Limit < 0 || f.Limit > MaxPageSize {
		return ClusterPage{}, fmt.Errorf("list clusters: limit %d is outside 1..%d", f.Limit, MaxPageSize)
	}
	var after *cursor
	if f.Continue != "" {
		c, err := decodeCursor(f.Continue)
		if err != nil {
			return ClusterPage{}, err
		}
		after = &c
	}
	// Sized for the whole page up front: bun appends row by row, and
	// growing a slice of 250-byte rows to 101 cost 64 KB of allocation and
	// copying per request, the largest allocation of GET /clusters.
	clusters := make([]Cluster, 0, f.Limit+1)
	var page ClusterPage
	var err error
	if s.dialect == DialectPostgres {
		page, err = s.listClusterPagePostgres(ctx, f, after, clusters)
	} else {
		page, err = s.listClusterPageSQLite(ctx, f, after, clusters)
	}
	if err != nil {
		return ClusterPage{}, fmt.Errorf("list clusters: %w", err)
	}
	clusters = page.Clusters
	if f.Limit > 0 && len(clusters) > f.Limit {
		page.Clusters = clusters[:f.Limit]
		last := page.Clusters[f.Limit-1]
		page.Continue = encodeCursor(cursor{CreatedAt: last.CreatedAt, Name: last.Name})
	}
	return page, nil
}

// listClusterPageSQLite is ListClusterPage on SQLite, which runs in
// process: a round trip costs nothing there, so each answer has its own.
func (s *Store) listClusterPageSQLite(ctx context.Context, f ClusterFilter, after *cursor, clusters []Cluster) (ClusterPage, error) {
	p := ClusterPage{}
	err := s.listClusterPageBun(ctx, f, after, &clusters)
	if err == nil {
		p.HostRegistered, err = s.HostRegistered(ctx)
	}
	if err == nil && f.ActiveToken != "" {
		p.TokenActive, err = s.TokenActive(ctx, f.ActiveToken)
	}
	p.Clusters = clusters
	return p, err
}

// listClusterPageBun is ListClusterPage's query built by bun, which
// formats times as SQLite's columns store them.
func (s *Store) listClusterPageBun(ctx context.Context, f ClusterFilter, after *cursor, clusters *[]Cluster) error {
	q := s.db.NewSelect().Model(clusters)
	filterClusters(q, f)
	if after != nil {
		q = q.Where("(created_at, name) > (?, ?)", after.CreatedAt, after.Name)
	}
	q = q.Order("created_at", "name")
	if f.Limit > 0 {
		q = q.Limit(int64(f.Limit) + 1) // one more tells whether another page follows
	}
	return q.Scan(ctx)
}

// filterClusters adds f's filters to q.
func filterClusters(q *bun.SelectQuery, f ClusterFilter) {
	if f.Status != "" {
		q.Where("status = ?", f.Status)
	}
	if f.Provider != "" {
		q.Where("provider = ?", f.Provider)
	}
	if f.Source != "" {
		q.Where("source = ?", f.Source)
	}
	if f.NamePrefix != "" {
		// substr rather than LIKE: no wildcards to escape, and the same
		// case-sensitive answer on both databases.
		q.Where("substr(name, 1, ?) = ?", len([]rune(f.NamePrefix)), f.NamePrefix)
	}
	if f.Team != "" {
		q.Where("team = ?", f.Team)
	}
	if f.MemberOf != "" {
		q.Where(memberOfSQL, f.MemberOf)
	}
}

// memberOfSQL keeps the rows of the teams user ? belongs to.
const memberOfSQL = "team IN (SELECT team FROM team_members WHERE user_id = ?)"

// HostRegistered reports whether a host cluster row exists. Every page of
// GET /clusters asks, so it must read the partial index clusters_one_host
// (a few µs) and never the table. SELECT EXISTS (... WHERE is_host) did not:
// on a table PostgreSQL has not analyzed yet (just restored or bulk-loaded)
// it guesses a third of the rows are hosts and scans the table for one,
// 0.5-0.7 ms of its CPU per request at 10,000 rows with no host row. ORDER
// BY is_host ... LIMIT 1 is only cheap through that index, whatever the
// statistics say (EXISTS would drop the ORDER BY and LIMIT).
func (s *Store) HostRegistered(ctx context.Context) (bool, error) {
	var found []int
	err := s.db.NewSelect().Model((*Cluster)(nil)).ColumnExpr("1").Where("is_host").
		OrderExpr("is_host").Limit(1).Scan(ctx, &found)
	if err != nil {
		return false, fmt.Errorf("look up the host cluster: %w", err)
	}
	return len(found) > 0, nil
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c) // a time and a string always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(token string) (cursor, error) {
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.CreatedAt.IsZero() || c.Name == "" {
		return cursor{}, fmt.Errorf("%w: pass the continue value of the previous page unchanged, or none to start over", ErrBadContinue)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	return c, nil
}
