package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// A SQLite backup taken while requests write is a database the store
// opens as it is, holding every row written before it and only rows the
// source has.
func TestSQLiteBackupWhileInUseRestores(t *testing.T) {
	ctx := context.Background()
	s := openForTest(t, sqliteDSNForTest(t))
	fx := upgradeFixture(s.now())
	fx.insert(ctx, t, s)
	copyPath := filepath.Join(t.TempDir(), "backup.db")

	during := whileWriting(ctx, t, s, func() {
		if err := s.Backup(ctx, copyPath); err != nil {
			t.Fatalf("Backup: %v", err)
		}
	})
	if info, err := os.Stat(copyPath); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, %v; want mode 0600 (it holds sealed credentials and password hashes)", info, err)
	}
	checkRestored(ctx, t, s, openForTest(t, copyPath), fx, during)
}

func TestSQLiteBackupRefusesAnExistingFileAndPostgres(t *testing.T) {
	ctx := context.Background()
	s := openForTest(t, sqliteDSNForTest(t))
	existing := filepath.Join(t.TempDir(), "keep.db")
	if err := os.WriteFile(existing, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Backup(ctx, existing); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Backup over an existing file: %v; want it refused", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "precious" {
		t.Errorf("the existing file now holds %q", b)
	}
	pg := &Store{dialect: DialectPostgres}
	if err := pg.Backup(ctx, filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Errorf("Backup of PostgreSQL: %v; want it to name pg_dump", err)
	}
}

// pg_dump -Fc of a database in use, restored by pg_restore into a new
// database, is one the store opens without migrating, with every row.
func TestPostgresDumpRestores(t *testing.T) {
	ctx := context.Background()
	srcURL := testpg.Database(t)
	s := openForTest(t, srcURL)
	fx := upgradeFixture(s.now())
	fx.insert(ctx, t, s)
	dump := filepath.Join(t.TempDir(), "kubeopera.dump")

	during := whileWriting(ctx, t, s, func() {
		runPG(t, "pg_dump", "-Fc", "--dbname="+srcURL, "--file="+dump)
	})
	dstURL := testpg.Database(t)
	runPG(t, "pg_restore", "--no-owner", "--exit-on-error", "--dbname="+dstURL, dump)

	restored, err := Open(ctx, dstURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { restored.Close() })
	var applied, want int
	_ = s.db.NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &want)
	if err := restored.db.NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &applied); err != nil || applied != want || want == 0 {
		t.Errorf("restored bun_migrations: %d rows, %v; want %d, so Migrate has nothing to redo", applied, err, want)
	}
	if err := restored.Migrate(ctx); err != nil {
		t.Fatalf("Migrate the restored database: %v", err)
	}
	checkRestored(ctx, t, s, restored, fx, during)
}

// whileWriting runs backup while a writer adds audit events as fast as it
// can, from its first write until backup returns, and returns how many it
// wrote.
func whileWriting(ctx context.Context, t *testing.T, s *Store, backup func()) int {
	t.Helper()
	ctx, stop := context.WithCancel(ctx)
	started := make(chan struct{})
	var once sync.Once
	var wg sync.WaitGroup
	written := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer once.Do(func() { close(started) })
		for ctx.Err() == nil {
			if err := s.AddAuditEvent(ctx, &AuditEvent{Actor: "writer", Method: "POST", Route: "/w", Status: 201}); err != nil {
				if ctx.Err() == nil {
					t.Errorf("write during the backup: %v", err)
				}
				return
			}
			written++
			once.Do(func() { close(started) })
		}
	}()
	finish := func() { stop(); wg.Wait() }
	defer finish() // also when backup fails the test
	<-started
	backup()
	finish()
	return written
}

// checkRestored compares the restored database with its source: every
// table the same rows, except audit_events, which holds the fixture's and
// some of the writer's, none the source lacks; and the store's reads find
// every fixture row in it.
func checkRestored(ctx context.Context, t *testing.T, src, restored *Store, fx fixture, written int) {
	t.Helper()
	tables := catalog(ctx, t, src)
	if got := catalog(ctx, t, restored); len(got) != len(tables) {
		t.Errorf("the restored database has tables %v; its source %v", keys(got), keys(tables))
	}
	want, got := snapshot(ctx, t, src, tables), snapshot(ctx, t, restored, tables)
	for _, r := range got["audit_events"] {
		if !slices.Contains(want["audit_events"], r) {
			t.Errorf("the restored audit_events has a row its source never had: %s", r)
		}
	}
	n := len(got["audit_events"])
	if n <= len(fx.audit) || n > len(fx.audit)+written {
		t.Errorf("the restored audit_events has %d rows; want the fixture's %d and 1 to %d written before the backup", n, len(fx.audit), written)
	}
	delete(want, "audit_events")
	compareSnapshots(t, "after the restore", want, got)
	t.Logf("restored %d tables; %d of %d events written during the backup are in it", len(tables), n-len(fx.audit), written)
	fx.readThroughStore(ctx, t, restored, tables)
}

// runPG runs a PostgreSQL client program from PGBIN (by default Debian's
// PostgreSQL 15, which hack/with-postgres.sh starts the server from).
func runPG(t *testing.T, name string, args ...string) {
	t.Helper()
	dir := os.Getenv("PGBIN")
	if dir == "" {
		dir = "/usr/lib/postgresql/15/bin"
	}
	out, err := exec.Command(filepath.Join(dir, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s\n(set PGBIN to the directory of PostgreSQL 15's client programs)", name, err, out)
	}
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
