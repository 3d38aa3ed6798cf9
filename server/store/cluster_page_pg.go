package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// clusterSelect reads the columns of Cluster, in the order readCluster
// takes them (TestSelectListsMatchTheModels keeps them complete). The
// timestamps come as text, which parseTimestamp reads faster than the
// driver reads a timestamptz.
const clusterSelect = "id, name, team, provider, region, source, plugin, is_host, status, message, kubernetes_version, " +
	"node_count, ready_node_count, cluster_uid, credential_id, created_at::text, updated_at::text"

const nClusterColumns = 17

// hostColumn answers HostRegistered in the page's own statement, saving a
// round trip per request. PostgreSQL runs it once per statement (an
// InitPlan) through the partial index clusters_one_host, for the reason
// HostRegistered gives.
const hostColumn = "(SELECT true FROM clusters WHERE is_host ORDER BY is_host LIMIT 1) IS NOT NULL"

// tokenColumn answers TokenActive in the page's own statement, through
// the primary key ($1 is the token's ID, $2 the time).
const tokenColumn = "EXISTS (SELECT 1 FROM api_tokens WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2) AND " +
	tokenUserActive + ")"

// listClusterPagePostgres is ListClusterPage on PostgreSQL: the same query
// as bun builds, scanned without reflection, with HostRegistered and
// TokenActive answered by the same statement. A page without filters is
// prepared once per connection (stmtCache); a filtered one is planned for
// its values, as before, since one plan for every status or provider could
// walk the whole table for a rare one. It returns up to f.Limit+1 rows (all
// when f.Limit is 0).
func (s *Store) listClusterPagePostgres(ctx context.Context, f ClusterFilter, after *cursor, out []Cluster) (ClusterPage, error) {
	query, args := clusterPageSQL(f, after, s.now())
	// A member's page has the same text for every member (the user is a
	// parameter) and is as common as an admin's: prepared too.
	filtered := f.Status != "" || f.Provider != "" || f.Source != "" || f.NamePrefix != "" || f.Team != ""
	rows, err := s.stmts.query(ctx, !filtered, query, args...)
	if err != nil {
		return ClusterPage{}, err
	}
	defer rows.Close()
	var vals [nClusterColumns + 2]any
	var dest [nClusterColumns + 2]any
	for i := range vals {
		dest[i] = &vals[i]
	}
	n := nClusterColumns + 1 // with the host column
	if f.ActiveToken != "" {
		n++
	}
	p := ClusterPage{}
	for rows.Next() {
		if err := rows.Scan(dest[:n]...); err != nil {
			return ClusterPage{}, err
		}
		var c Cluster
		if err := readCluster(&c, vals[:nClusterColumns]); err != nil {
			return ClusterPage{}, err
		}
		p.HostRegistered, _ = vals[nClusterColumns].(bool)
		p.TokenActive, _ = vals[nClusterColumns+1].(bool)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return ClusterPage{}, err
	}
	p.Clusters = out
	if len(out) == 0 { // no row carried the answers
		p.HostRegistered, err = s.HostRegistered(ctx)
		if err == nil && f.ActiveToken != "" {
			p.TokenActive, err = s.TokenActive(ctx, f.ActiveToken)
		}
	}
	return p, err
}

// clusterPageSQL is the page's statement with $n placeholders, and its
// arguments. Its text depends only on which filters are set, so the
// statement cache holds at most one per combination.
func clusterPageSQL(f ClusterFilter, after *cursor, now time.Time) (string, []any) {
	var b strings.Builder
	b.Grow(640)
	b.WriteString("SELECT " + clusterSelect + ", " + hostColumn)
	args := make([]any, 0, 9)
	if f.ActiveToken != "" {
		b.WriteString(", " + tokenColumn)
		args = append(args, f.ActiveToken, now)
	}
	b.WriteString(" FROM clusters")
	first := true
	where := func(cond string, vals ...any) {
		if first {
			b.WriteString(" WHERE ")
			first = false
		} else {
			b.WriteString(" AND ")
		}
		for _, v := range vals {
			args = append(args, v)
			cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(args)), 1)
		}
		b.WriteString(cond)
	}
	if f.Status != "" {
		where("status = ?", f.Status)
	}
	if f.Provider != "" {
		where("provider = ?", f.Provider)
	}
	if f.Source != "" {
		where("source = ?", string(f.Source))
	}
	if f.NamePrefix != "" {
		where("substr(name, 1, ?) = ?", int64(len([]rune(f.NamePrefix))), f.NamePrefix)
	}
	if f.Team != "" {
		where("team = ?", f.Team)
	}
	if f.MemberOf != "" {
		where(memberOfSQL, f.MemberOf)
	}
	if after != nil {
		where("(created_at, name) > (?, ?)", after.CreatedAt, after.Name)
	}
	// Qualified: a bare created_at would name the text column of the
	// select list, and PostgreSQL would sort the page by text.
	b.WriteString(" ORDER BY clusters.created_at, clusters.name")
	if f.Limit > 0 {
		// A constant, not a parameter: one more row tells whether another
		// page follows, and the planner sees the real limit.
		b.WriteString(" LIMIT " + strconv.Itoa(f.Limit+1))
	}
	return b.String(), args
}

// readCluster fills c from one row of clusterSelect as pgdriver returns
// it: text as string, integers as int64, NULL as nil.
func readCluster(c *Cluster, v []any) error {
	var r rowReader
	c.ID, c.Name, c.Team, c.Provider, c.Region = r.str(v[0]), r.str(v[1]), r.str(v[2]), r.str(v[3]), r.str(v[4])
	c.Source, c.Plugin, c.IsHost = Source(r.str(v[5])), r.str(v[6]), r.boolean(v[7])
	c.Status, c.Message, c.KubernetesVersion = r.str(v[8]), r.str(v[9]), r.str(v[10])
	c.NodeCount, c.ReadyNodeCount = r.integer(v[11]), r.integer(v[12])
	c.ClusterUID, c.CredentialID = r.nullStr(v[13]), r.nullStr(v[14])
	c.CreatedAt, c.UpdatedAt = r.timestamp(v[15]), r.timestamp(v[16])
	if r.err != nil {
		return fmt.Errorf("read cluster row: %w", r.err)
	}
	return nil
}

// rowReader converts driver values, keeping the first mismatch.
type rowReader struct{ err error }

func (r *rowReader) fail(v any, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("got %T where the column holds %s", v, want)
	}
}

func (r *rowReader) str(v any) string {
	s, ok := v.(string)
	if !ok {
		r.fail(v, "text")
	}
	return s
}

func (r *rowReader) nullStr(v any) *string {
	if v == nil {
		return nil
	}
	s := r.str(v)
	return &s
}

func (r *rowReader) integer(v any) int {
	n, ok := v.(int64)
	if !ok {
		r.fail(v, "an integer")
	}
	return int(n)
}

func (r *rowReader) boolean(v any) bool {
	b, ok := v.(bool)
	if !ok {
		r.fail(v, "a boolean")
	}
	return b
}

// timestamp reads a timestamptz selected as text.
func (r *rowReader) timestamp(v any) time.Time {
	t, err := parseTimestamp(r.str(v))
	if err != nil && r.err == nil {
		r.err = err
	}
	return t
}

func (r *rowReader) nullTimestamp(v any) *time.Time {
	if v == nil {
		return nil
	}
	t := r.timestamp(v)
	return &t
}

// parseTimestamp reads a timestamptz that PostgreSQL sent as text. The
// form it sends in UTC, "2006-01-02 15:04:05.999999+00", is read by hand in
// a tenth of the time time.Parse takes (two per row were a third of the
// driver's time for a page); anything else goes to pgdriver.ParseTime,
// which is what the column would have been read with.
func parseTimestamp(s string) (time.Time, error) {
	n := len(s)
	if n < len("2006-01-02 15:04:05+00") || s[n-3:] != "+00" || s[4] != '-' || s[7] != '-' || s[10] != ' ' ||
		s[13] != ':' || s[16] != ':' {
		return pgdriver.ParseTime(s)
	}
	var f [6]int
	for i, at := range [6]int{0, 5, 8, 11, 14, 17} {
		width := 2
		if i == 0 {
			width = 4
		}
		v, ok := digits(s[at : at+width])
		if !ok {
			return pgdriver.ParseTime(s)
		}
		f[i] = v
	}
	nsec := 0
	if frac := s[19 : n-3]; frac != "" {
		v, ok := digits(frac[1:])
		if frac[0] != '.' || !ok || len(frac) > 10 {
			return pgdriver.ParseTime(s)
		}
		for range 10 - len(frac) {
			v *= 10
		}
		nsec = v
	}
	return time.Date(f[0], time.Month(f[1]), f[2], f[3], f[4], f[5], nsec, time.UTC), nil
}

// digits reads a run of ASCII digits.
func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int(c)
	}
	return v, true
}
