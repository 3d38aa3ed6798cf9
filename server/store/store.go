// Package store is the database layer of the KubeOpera REST server: clusters,
// cloud credentials and API tokens, kept in SQLite (a single file, the
// default) or PostgreSQL. The same migrations and queries serve both.
package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Dialect names returned by Store.Dialect.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// sqliteBusyTimeout is how long a SQLite writer waits for another writer's
// lock before failing: concurrent requests queue instead of erroring. It
// stays well under a client's patience: a database locked longer (another
// process holding a write transaction) answers 503, not a hang.
const sqliteBusyTimeout = 5 * time.Second

// sqliteReadyProbe is how long Ready waits for SQLite's write lock.
const sqliteReadyProbe = 500 * time.Millisecond

// postgresReadyProbe is how long Ready waits for a write's table locks on
// PostgreSQL: /readyz answers within the probes' usual 5 s.
const postgresReadyProbe = time.Second

// Store is a handle on the KubeOpera database. It is safe for concurrent use.
type Store struct {
	db      *bun.DB
	dialect string
	// stmts holds the prepared statements of the hottest PostgreSQL reads.
	stmts *stmtCache
	// now is the clock for created_at and updated_at; tests replace it.
	now func() time.Time
}

// Open opens the database named by dsn. A "postgres://" or "postgresql://"
// URL selects PostgreSQL; anything else is the path of a SQLite file, whose
// parent directories are created. Open checks that the database answers but
// does not migrate it: call Migrate.
func Open(ctx context.Context, dsn string) (*Store, error) {
	return OpenPool(ctx, dsn, DefaultPool)
}

func open(dsn string) (*Store, error) {
	if IsPostgresDSN(dsn) {
		return openPostgres(dsn), nil
	}
	return openSQLite(dsn)
}

// IsPostgresDSN reports whether dsn names a PostgreSQL database rather
// than a SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// The PostgreSQL connection pool. database/sql keeps only 2 idle
// connections by default, so under concurrent requests most queries would
// open a new connection (a TCP and authentication round trip each); the
// pool keeps as many idle as it may open. PostgreSQL's default of 100
// connections leaves room for the controller and a second server.
//
// Each connection reads through a 32 KiB buffer instead of pgdriver's
// 4 KiB: a 100-row page of clusters is about 25 KiB, which took seven read
// system calls.
const (
	postgresReadBuffer      = 32 << 10
	postgresMaxConns        = 20
	postgresConnMaxIdleTime = 5 * time.Minute
)

func openPostgres(dsn string) *Store {
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(dsn), pgdriver.WithBufferSize(postgresReadBuffer)))
	sqldb.SetMaxOpenConns(postgresMaxConns)
	sqldb.SetMaxIdleConns(postgresMaxConns)
	sqldb.SetConnMaxIdleTime(postgresConnMaxIdleTime)
	return newStore(bun.NewDB(sqldb, pgdialect.New()), DialectPostgres)
}

func openSQLite(path string) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("open sqlite database: no file path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite database %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("create directory for sqlite database %s: %w", path, err)
	}
	sqldb, err := sql.Open(sqliteshim.ShimName, sqliteDSN(abs))
	if err != nil {
		return nil, fmt.Errorf("open sqlite database %s: %w", path, err)
	}
	return newStore(bun.NewDB(sqldb, sqlitedialect.New()), DialectSQLite), nil
}

// sqliteDSN builds a URI for the file at abs with the pragmas every
// connection needs: busy_timeout so writers wait for each other, foreign
// keys on, and WAL so readers do not block the writer. _txlock=immediate
// takes the write lock at BEGIN, so a transaction never fails half-way on
// upgrading a read lock. The path is escaped, as a '?' or '#' in a file name
// would otherwise end it.
func sqliteDSN(abs string) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteBusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String()
}

func newStore(db *bun.DB, dialect string) *Store {
	return &Store{db: db, dialect: dialect, now: now, stmts: newStmtCache(db.DB)}
}

// now is the production clock: UTC, truncated to the microsecond that
// PostgreSQL stores, so a value written and read back compares equal.
func now() time.Time {
	return time.Now().UTC().Truncate(time.Microsecond)
}

// Close closes the database.
func (s *Store) Close() error {
	s.stmts.close()
	return s.db.Close()
}

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string {
	return s.dialect
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.db.PingContext(ctx)
}

// Ready checks that the database answers and, for SQLite, that a write
// could start now: a file another process holds locked still answers
// reads, but every change would wait and fail.
//
// On PostgreSQL a table another session holds locked (a migration, a
// LOCK TABLE, a long ALTER) answers a ping but would hold every request
// that writes it: Ready takes, for an instant, the lock a write takes on
// the tables requests write, waiting at most postgresReadyProbe.
func (s *Store) Ready(ctx context.Context) error {
	if s.dialect != DialectSQLite {
		return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("SET LOCAL lock_timeout = '%dms'", postgresReadyProbe.Milliseconds())); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, "LOCK TABLE clusters, api_tokens, users, sessions, audit_events IN ROW EXCLUSIVE MODE"); err != nil {
				return fmt.Errorf("take a write's lock on the tables requests write: %w", err)
			}
			return nil
		})
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", sqliteReadyProbe.Milliseconds())); err != nil {
		return err
	}
	// The connection goes back to the pool: give it back its own timeout.
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("PRAGMA busy_timeout = %d", sqliteBusyTimeout.Milliseconds())) //nolint:errcheck
	tx, err := conn.BeginTx(ctx, nil)                                                                                             // BEGIN IMMEDIATE (_txlock): takes the write lock
	if err != nil {
		return fmt.Errorf("take the database's write lock: %w", err)
	}
	return tx.Rollback()
}
