package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

// This migration is Go, not SQL, because SQLite cannot change a CHECK
// constraint in place: the table is rebuilt from its own stored definition,
// so columns other migrations added survive. It
//   - adds clusters.plugin, the provider plugin that made a provisioned
//     cluster (filled in for the AWS rows that predate it);
//   - allows clusters.source 'provisioned', the source of a cluster made by
//     any plugin other than KubeOpera's AWS ones;
//   - drops the check that limited cloud_credentials.kind to the two AWS
//     kinds: plugins declare the kinds they accept, and the server checks a
//     credential against its kind's declaration.
func registerPluginClusters(m *migrate.Migrations) {
	m.MustRegister(pluginClustersUp, pluginClustersDown)
}

const (
	oldSources = "'self_registered', 'connected_existing', 'provisioned_vanilla', 'provisioned_eks'"
	newSources = oldSources + ", 'provisioned'"
)

var kindCheckRE = regexp.MustCompile(`,\s*CONSTRAINT cloud_credentials_kind_check CHECK \(kind IN \([^)]*\)\)`)

func pluginClustersUp(ctx context.Context, db *bun.DB) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE clusters ADD COLUMN plugin TEXT NOT NULL DEFAULT ''"); err != nil {
			return fmt.Errorf("add clusters.plugin: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE clusters SET plugin = CASE source "+
			"WHEN 'provisioned_vanilla' THEN 'aws-vanilla' WHEN 'provisioned_eks' THEN 'aws-eks' ELSE '' END"); err != nil {
			return fmt.Errorf("record the plugin of provisioned clusters: %w", err)
		}
		if tx.Dialect().Name().String() != "sqlite" {
			for _, q := range []string{
				"ALTER TABLE clusters DROP CONSTRAINT clusters_source_check",
				"ALTER TABLE clusters ADD CONSTRAINT clusters_source_check CHECK (source IN (" + newSources + "))",
				"ALTER TABLE cloud_credentials DROP CONSTRAINT cloud_credentials_kind_check",
			} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			return nil
		}
		if err := sqliteRebuild(ctx, tx, "clusters", func(def string) string {
			return strings.Replace(def, oldSources+")", newSources+")", 1)
		}); err != nil {
			return err
		}
		return sqliteRebuild(ctx, tx, "cloud_credentials", func(def string) string {
			return kindCheckRE.ReplaceAllString(def, "")
		})
	})
}

// pluginClustersDown drops clusters.plugin; the widened checks stay, since
// rows may already use them.
func pluginClustersDown(ctx context.Context, db *bun.DB) error {
	_, err := db.ExecContext(ctx, "ALTER TABLE clusters DROP COLUMN plugin")
	return err
}

// sqliteRebuild recreates table from its stored definition as changed by
// edit, copies every row, and recreates its indexes (SQLite's documented
// procedure for schema changes ALTER TABLE cannot make).
func sqliteRebuild(ctx context.Context, tx bun.Tx, table string, edit func(string) string) error {
	var def string
	if err := tx.QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&def); err != nil {
		return fmt.Errorf("read the definition of %s: %w", table, err)
	}
	changed := edit(def)
	if changed == def {
		return fmt.Errorf("rebuild %s: the definition does not have the expected constraint", table)
	}
	var indexes []string
	rows, err := tx.QueryContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", table)
	if err != nil {
		return fmt.Errorf("read the indexes of %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return err
		}
		indexes = append(indexes, s.String)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	tmp := table + "_rebuild"
	head := regexp.MustCompile(`^CREATE TABLE "?` + table + `"?`)
	stmts := []string{head.ReplaceAllString(changed, "CREATE TABLE "+tmp),
		"INSERT INTO " + tmp + " SELECT * FROM " + table,
		"DROP TABLE " + table,
		"ALTER TABLE " + tmp + " RENAME TO " + table}
	for _, q := range append(stmts, indexes...) {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild %s: %w", table, err)
		}
	}
	return nil
}
