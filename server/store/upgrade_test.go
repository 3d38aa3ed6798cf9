package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"

	"github.com/uptrace/bun/migrate"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// landedMigrations is the schema of the last landed release, 9463aab: the
// migrations `git show 9463aab:server/store/migrations/` lists, and the two
// written in Go (20260401000001_plugin_clusters.go,
// 20261201000002_credential_references.go). Databases made by it exist, so
// every migration added since must carry their rows over. Move it on to a
// later commit by listing that commit's migrations here (and their files'
// SHA-256 in landedSQL) and giving the new tables rows in upgradeFixture.
var landedMigrations = []string{
	"20250601000000_initial",
	"20250615000000_users",
	"20260201000001_token_lifecycle",
	"20260201000002_audit",
	"20260301000001_sessions",
	"20260401000001_plugin_clusters",
	"20260501000001_cluster_list",
	"20261201000001_sign_in_attempts",
	"20261201000002_credential_references",
	"20261201000003_audit_counts",
	"20261202000001_setup_secret",
}

// landedSQL is the SHA-256 of each landed SQL migration as it was at
// 9463aab. The fixture is made by today's copies of these files, so it is
// that commit's schema only while they are unchanged (and they must stay
// so: databases already ran them).
var landedSQL = map[string]string{
	"20250601000000_initial.tx.up.sql":          "70f93d55bbbdc57da354c52ea43933a9d27c1a336c6ccb07ab7bf65e8c0dbf6e",
	"20250615000000_users.tx.up.sql":            "e3c1694c9547e524128bd5e24cd6aeea3807e84f6958f551b4c7e83c06306dbe",
	"20260201000001_token_lifecycle.tx.up.sql":  "9f435965f8b166e026ae97444f79d8fde66d332e97aa1102b83fe9bfa8bc8679",
	"20260201000002_audit.tx.up.sql":            "6dbbb73beceaeb9e386d0ea6aa00573a77979b1ce0801dd690d82a01fd0a6f3f",
	"20260301000001_sessions.tx.up.sql":         "1b4d454d9d7cc23f030a7018c202147aaed87c5298563e08e696242ca936149c",
	"20260501000001_cluster_list.tx.up.sql":     "f71755a14f2ac94a359db7ab618ea8ad9e67423cecd5577bef74d96458708203",
	"20261201000001_sign_in_attempts.tx.up.sql": "ca84ce59c41dd1b5705ccf97433ee4a2b15097b549ae03ff731af5bf1f0da5ee",
	"20261201000003_audit_counts.tx.up.sql":     "79f24a203054fe24651358b104f6b0a9b3c18ade146662e626d123021b7920b7",
	"20261202000001_setup_secret.tx.up.sql":     "2f9576df586fcba2c1be1dd76cacf41796c7d45ffc188c821d168f95ddea36ef",
}

// A database made by the last landed schema, with rows in every one of its
// tables, is migrated to today's schema: every row keeps every value (read
// back with SQL, column by column) and the store's own reads find each one.
// Whatever migrations come after the landed set run here, so one that drops
// or rewrites old data fails this test.
func TestUpgradeFromLandedSchemaKeepsEveryRow(t *testing.T) {
	for name, dsn := range map[string]func(*testing.T) string{
		DialectSQLite:   sqliteDSNForTest,
		DialectPostgres: func(t *testing.T) string { return testpg.Database(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(ctx, dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			migrateOnly(ctx, t, s, landedMigrations)

			fx := upgradeFixture(s.now())
			inserted := fx.insert(ctx, t, s)
			landed := catalog(ctx, t, s)
			requireEveryTableFilled(ctx, t, s, landed, inserted)
			before := snapshot(ctx, t, s, landed)

			if err := s.Migrate(ctx); err != nil {
				t.Fatalf("Migrate from the landed schema: %v", err)
			}
			after := snapshot(ctx, t, s, landed)
			compareSnapshots(t, "after the upgrade", before, after)
			fx.readThroughStore(ctx, t, s, landed)
			for table := range catalog(ctx, t, s) {
				if _, ok := landed[table]; !ok {
					t.Logf("table %s is new since the landed schema (empty here)", table)
				}
			}
		})
	}
}

// migrateOnly applies the migrations named in names, and only them, as
// Migrate would (recorded in bun_migrations, so a later Migrate applies the
// rest). It fails the test when a name has no migration or a landed SQL
// file has changed since it landed.
func migrateOnly(ctx context.Context, t *testing.T, s *Store, names []string) {
	t.Helper()
	for file, want := range landedSQL {
		body, err := fs.ReadFile(migrationFiles, filepath.ToSlash(filepath.Join("migrations", file)))
		if err != nil {
			t.Fatalf("landed migration %s is gone: %v", file, err)
		}
		if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != want {
			t.Fatalf("landed migration %s was changed after databases ran it: "+
				"put it back and make the change in a new migration", file)
		}
	}
	all, err := allMigrations()
	if err != nil {
		t.Fatal(err)
	}
	some := migrate.NewMigrations()
	found := 0
	for _, m := range all.Sorted() {
		if slices.Contains(names, m.Name+"_"+m.Comment) {
			some.Add(m)
			found++
		}
	}
	if found != len(names) {
		t.Fatalf("found %d of the %d landed migrations %v: a landed migration was renamed or removed", found, len(names), names)
	}
	m := migrate.NewMigrator(s.db, some, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		t.Fatalf("apply the landed migrations: %v", err)
	}
}

// requireEveryTableFilled fails the test when the landed schema has a table
// the fixture put no row in, or the fixture wrote to a table that is not
// there, so a table added to the landed set cannot be forgotten.
func requireEveryTableFilled(ctx context.Context, t *testing.T, s *Store, landed map[string][]string, inserted []string) {
	t.Helper()
	for table := range landed {
		if !slices.Contains(inserted, table) {
			t.Errorf("table %s of the landed schema has no rows in the fixture: add some to upgradeFixture", table)
			continue
		}
		var n int
		if err := s.db.NewRaw("SELECT count(*) FROM "+quoteIdent(table)).Scan(ctx, &n); err != nil || n == 0 {
			t.Errorf("table %s: %d rows, %v; the fixture wrote none", table, n, err)
		}
	}
	for _, table := range inserted {
		if _, ok := landed[table]; !ok {
			t.Errorf("the fixture wrote table %s, which the landed schema does not have", table)
		}
	}
}
