package store

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// bookkeeping tables are bun's record of applied migrations, not data.
var bookkeeping = []string{"bun_migrations", "bun_migration_locks"}

// catalog lists the tables of s's database and their columns, in column
// order, from the database's own catalog.
func catalog(ctx context.Context, t *testing.T, s *Store) map[string][]string {
	t.Helper()
	tablesQ := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	columnsQ := "SELECT name FROM pragma_table_info(?) ORDER BY cid"
	if s.dialect == DialectPostgres {
		tablesQ = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
		columnsQ = "SELECT column_name FROM information_schema.columns " +
			"WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position"
	}
	var tables []string
	if err := s.db.NewRaw(tablesQ).Scan(ctx, &tables); err != nil {
		t.Fatalf("list tables: %v", err)
	}
	out := map[string][]string{}
	for _, table := range tables {
		if slices.Contains(bookkeeping, table) {
			continue
		}
		var cols []string
		if err := s.db.NewRaw(columnsQ, table).Scan(ctx, &cols); err != nil || len(cols) == 0 {
			t.Fatalf("list the columns of %s: %v %v", table, cols, err)
		}
		out[table] = cols
	}
	return out
}

// snapshot reads every row of every table in tables, only the columns
// listed, each row rendered as one "column=value ..." line; the lines of a
// table are sorted, so two snapshots of the same rows are equal.
func snapshot(ctx context.Context, t *testing.T, s *Store, tables map[string][]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, cols := range tables {
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = quoteIdent(c)
		}
		q := "SELECT " + strings.Join(quoted, ", ") + " FROM " + quoteIdent(table)
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			t.Fatalf("read table %s, columns %v: %v", table, cols, err)
		}
		lines, err := renderRows(rows, cols)
		if err != nil {
			t.Fatalf("read table %s: %v", table, err)
		}
		slices.Sort(lines)
		out[table] = lines
	}
	return out
}

type scanner interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}

func renderRows(rows scanner, cols []string) ([]string, error) {
	defer rows.Close()
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		var b strings.Builder
		for i, c := range cols {
			fmt.Fprintf(&b, "%s=%s ", c, renderValue(vals[i]))
		}
		lines = append(lines, b.String())
	}
	return lines, rows.Err()
}

func renderValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return "x'" + hex.EncodeToString(v) + "'"
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case string:
		return fmt.Sprintf("%q", v)
	default:
		return fmt.Sprint(v)
	}
}

// compareSnapshots fails the test for every row of want that got lacks or
// has changed, and every row got has beyond want.
func compareSnapshots(t *testing.T, when string, want, got map[string][]string) {
	t.Helper()
	for table, rows := range want {
		for _, r := range rows {
			if !slices.Contains(got[table], r) {
				t.Errorf("%s, table %s lost or changed the row %s", when, table, r)
			}
		}
		for _, r := range got[table] {
			if !slices.Contains(rows, r) {
				t.Errorf("%s, table %s has a row it did not have: %s", when, table, r)
			}
		}
	}
}

// quoteIdent quotes a table or column name the same way for SQLite and
// PostgreSQL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
