package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// Rows written before plugins declared their credential kinds and any
// plugin could provision survive the migration: AWS clusters learn their
// plugin, the AWS credential kinds stay, and the new values are accepted
// while a source nobody defined is still refused.
func TestPluginMigrationKeepsOldRowsAndWidensChecks(t *testing.T) {
	for name, dsn := range map[string]func(*testing.T) string{
		DialectSQLite:   func(t *testing.T) string { return filepath.Join(t.TempDir(), "old.db") },
		DialectPostgres: func(t *testing.T) string { return testpg.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			sqlOnly := migrate.NewMigrations()
			if err := sqlOnly.Discover(migrationFiles); err != nil {
				t.Fatal(err)
			}
			m := migrate.NewMigrator(s.db, sqlOnly)
			if err := m.Init(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			for _, q := range []string{
				"INSERT INTO clusters (id, name, source, created_at, updated_at) VALUES ('v', 'v', 'provisioned_vanilla', ?, ?)",
				"INSERT INTO clusters (id, name, source, created_at, updated_at) VALUES ('e', 'e', 'provisioned_eks', ?, ?)",
				"INSERT INTO clusters (id, name, source, created_at, updated_at) VALUES ('c', 'c', 'connected_existing', ?, ?)",
				"INSERT INTO cloud_credentials (id, label, kind, ciphertext, key_id, created_at, updated_at) VALUES ('k', 'k', 'access_key', 'x', 'key', ?, ?)",
			} {
				if _, err := s.db.ExecContext(ctx, q, now, now); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if err := s.Migrate(ctx); err != nil {
				t.Fatalf("Migrate over the old schema: %v", err)
			}
			for id, plugin := range map[string]string{"v": "aws-vanilla", "e": "aws-eks", "c": ""} {
				c, err := s.GetCluster(ctx, id)
				if err != nil || c.Plugin != plugin {
					t.Errorf("cluster %s: plugin %q, %v; want %q", id, c.Plugin, err, plugin)
				}
			}
			if cred, err := s.GetCredential(ctx, "k"); err != nil || cred.Kind != "access_key" {
				t.Errorf("old credential: %+v, %v", cred, err)
			}
			if err := s.CreateCluster(ctx, &Cluster{Name: "h", Source: SourceProvisioned, Plugin: "hetzner"}); err != nil {
				t.Errorf("a cluster of another plugin: %v", err)
			}
			if err := s.CreateCredential(ctx, &Credential{Label: "t", Kind: "hetzner_token", Ciphertext: []byte("x"), KeyID: "key"}); err != nil {
				t.Errorf("a credential of a plugin-declared kind: %v", err)
			}
			if err := s.CreateCluster(ctx, &Cluster{Name: "bad", Source: "invented"}); err == nil {
				t.Error("a source nobody defined was stored")
			}
			if err := s.CreateCluster(ctx, &Cluster{Name: "v", Source: SourceProvisioned}); err == nil {
				t.Error("the unique name index did not survive the rebuild")
			}
		})
	}
}
