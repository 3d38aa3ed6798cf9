package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Pool sizes the PostgreSQL connection pool. database/sql keeps only two
// idle connections by default, so fifty clients made it open a new
// connection every few requests.
type Pool struct {
	// MaxOpen caps connections in use and idle; 0 means no cap.
	MaxOpen int
	// MaxIdle is how many connections are kept for reuse.
	MaxIdle int
	// MaxLifetime closes a connection this long after it was opened, so
	// the pool follows a failover or DNS change.
	MaxLifetime time.Duration
	// MaxIdleTime closes a connection unused this long.
	MaxIdleTime time.Duration
}

// DefaultPool suits one server against a PostgreSQL with the default 100
// connections.
var DefaultPool = Pool{MaxOpen: 25, MaxIdle: 25, MaxLifetime: 30 * time.Minute, MaxIdleTime: 5 * time.Minute}

func (p Pool) apply(db *sql.DB) {
	db.SetMaxOpenConns(p.MaxOpen)
	db.SetMaxIdleConns(p.MaxIdle)
	db.SetConnMaxLifetime(p.MaxLifetime)
	db.SetConnMaxIdleTime(p.MaxIdleTime)
}

// OpenPool is Open with a PostgreSQL pool of p; a SQLite file keeps
// database/sql's defaults.
func OpenPool(ctx context.Context, dsn string, p Pool) (*Store, error) {
	s, err := open(dsn)
	if err != nil {
		return nil, err
	}
	if s.dialect == DialectPostgres {
		p.apply(s.db.DB)
	}
	if err := s.db.PingContext(ctx); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("connect to %s database: %w", s.dialect, err)
	}
	return s, nil
}

// PoolStats reports the pool's use, for tests and diagnostics.
func (s *Store) PoolStats() sql.DBStats { return s.db.Stats() }

// Unavailable reports whether err means the database could not be reached
// or dropped the connection (rather than refusing a query): the server
// answers 503 for these.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var netErr *net.OpError
	var pgErr pgdriver.Error
	switch {
	case errors.As(err, &pgErr) && serverGoingAway(pgErr.Field('C')):
		return true
	case errors.As(err, &netErr), errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	}
	// database/sql's own error for a closed pool is not exported. A
	// SQLite file another process holds locked past the busy timeout
	// (SQLITE_BUSY) is unavailable for the moment too.
	msg := err.Error()
	return strings.Contains(msg, "sql: database is closed") || strings.Contains(msg, "database is locked") ||
		strings.Contains(msg, "SQLITE_BUSY")
}

// serverGoingAway reports whether a PostgreSQL SQLSTATE says the server
// is not serving for now rather than that the statement was wrong: class
// 08 (connection exception) and class 57 (operator intervention: an
// administrator or crash shutdown, "the database system is starting up"),
// except 57014 (a query cancelled by its statement timeout, which
// retrying will not cure).
func serverGoingAway(code string) bool {
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57") && code != "57014"
}
