package store

import (
	"context"
	"embed"
	"fmt"

	"github.com/uptrace/bun/migrate"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// goMigrations register the migrations written in Go (for a schema change
// that SQLite cannot make with one statement), each in a file named like
// the SQL ones.
var goMigrations = []func(*migrate.Migrations){registerPluginClusters, registerCredentialReferences, registerTeams}

// migrationLockKey is the PostgreSQL advisory lock that serialises Migrate
// across servers starting at once against the same database. Its value is
// arbitrary but fixed: "kubeopera" in ASCII, truncated to fit a bigint.
const migrationLockKey int64 = 0x6b7562656f7065

// Migrate brings the schema up to date, creating bun's bookkeeping tables
// (bun_migrations, bun_migration_locks) first. It is idempotent: migrations
// already applied are skipped.
func (s *Store) Migrate(ctx context.Context) error {
	migrations, err := allMigrations()
	if err != nil {
		return err
	}
	// Record a migration as applied only once it has run, so a failed one is
	// retried on the next start rather than silently skipped.
	migrator := migrate.NewMigrator(s.db, migrations, migrate.WithMarkAppliedOnSuccess(true))

	unlock, err := s.lockMigrations(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	if err := migrator.Init(ctx); err != nil {
		return fmt.Errorf("create migration tables: %w", err)
	}
	if _, err := migrator.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate %s database: %w", s.dialect, err)
	}
	return nil
}

// allMigrations returns every migration, SQL and Go.
func allMigrations() (*migrate.Migrations, error) {
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(migrationFiles); err != nil {
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	for _, register := range goMigrations {
		register(migrations)
	}
	return migrations, nil
}

// lockMigrations holds a PostgreSQL session advisory lock until the returned
// function is called. A SQLite database is a local file that one server
// owns, so it takes none.
func (s *Store) lockMigrations(ctx context.Context) (unlock func(), err error) {
	if s.dialect != DialectPostgres {
		return func() {}, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock migrations: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(?)", migrationLockKey); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("lock migrations: %w", err)
	}
	return func() {
		// Closing the connection would also end the session's lock, but the
		// pool keeps connections open, so release it explicitly.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock(?)", migrationLockKey)
		_ = conn.Close()
	}, nil
}
