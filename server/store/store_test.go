package store

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// eachDB runs fn against a fresh, migrated database of each kind: a SQLite
// file in a temporary directory and a PostgreSQL database from testpg.
func eachDB(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	for _, db := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{DialectSQLite, sqliteDSNForTest},
		{DialectPostgres, func(t *testing.T) string { return testpg.Database(t) }},
	} {
		t.Run(db.name, func(t *testing.T) {
			fn(t, openForTest(t, db.dsn(t)))
		})
	}
}

func sqliteDSNForTest(t *testing.T) string {
	return filepath.Join(t.TempDir(), "kubeopera.db")
}

// openForTest opens and migrates dsn, closing the store when the test ends.
func openForTest(t *testing.T, dsn string) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

// fakeClock is a settable clock for a Store's created_at and updated_at.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// useFakeClock makes s stamp rows with a clock the test controls, starting
// at a fixed instant.
func useFakeClock(s *Store) *fakeClock {
	c := &fakeClock{t: time.Date(2025, 6, 1, 12, 0, 0, 123456000, time.UTC)}
	s.now = c.Now
	return c
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d and returns the new time.
func (c *fakeClock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

// utc normalises the times in a row read back from a database, which may
// carry another *time.Location for the same instant, so rows compare with
// reflect.DeepEqual.
func utc(t time.Time) time.Time { return t.UTC() }

func TestMigrateTwiceIsHarmless(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		c := &Cluster{Name: "kept", Source: SourceConnectedExisting}
		if err := s.CreateCluster(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("second Migrate: %v", err)
		}
		if _, err := s.GetCluster(ctx, c.ID); err != nil {
			t.Errorf("the row written before the second Migrate: %v", err)
		}
		var applied int
		if err := s.db.NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &applied); err != nil {
			t.Fatal(err)
		}
		ups, _ := fs.Glob(migrationFiles, "migrations/*.up.sql")
		if applied != len(ups)+len(goMigrations) {
			t.Errorf("bun_migrations has %d rows, want %d (each migration once)", applied, len(ups)+len(goMigrations))
		}
	})
}

func TestConcurrentMigrateOnPostgresSucceeds(t *testing.T) {
	dsn := testpg.Database(t)
	ctx := context.Background()
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			s, err := Open(ctx, dsn)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			errs <- s.Migrate(ctx)
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Errorf("Migrate while other servers migrate: %v", err)
		}
	}
}

func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	// A nested directory that does not exist yet, and characters a URI
	// would otherwise read as its query or fragment.
	path := filepath.Join(t.TempDir(), "new dir", "state?#.db")
	s := openForTest(t, path)
	if got := s.Dialect(); got != DialectSQLite {
		t.Errorf("Dialect() = %q, want %q", got, DialectSQLite)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database file is not at the path given: %v", err)
	}
	for _, p := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
	} {
		// Ready probes the write lock with a short timeout on a pooled
		// connection, and must give it back its own.
		if err := s.Ready(ctx); err != nil {
			t.Fatal(err)
		}
		var got string
		if err := s.db.NewRaw("PRAGMA "+p.pragma).Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if got != p.want {
			t.Errorf("PRAGMA %s = %s, want %s", p.pragma, got, p.want)
		}
	}
}

func TestOpenPostgres(t *testing.T) {
	s := openForTest(t, testpg.Database(t))
	if got := s.Dialect(); got != DialectPostgres {
		t.Errorf("Dialect() = %q, want %q", got, DialectPostgres)
	}
}

func TestOpenFailsWhenPostgresDoesNotAnswer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback: nothing listens, so the connection is refused.
	s, err := Open(ctx, "postgresql://nobody@127.0.0.1:1/none?sslmode=disable")
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded with no server")
	}
}
