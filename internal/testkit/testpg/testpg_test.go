package testpg

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"
)

func TestDatabaseIsAFreshPostgres15(t *testing.T) {
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(Database(t))))
	defer db.Close()
	var version string
	if err := db.QueryRow("SHOW server_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "15.") {
		t.Errorf("server_version = %q, want PostgreSQL 15", version)
	}
	var tables int
	if err := db.QueryRow("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("a fresh database has %d tables", tables)
	}
}

func TestRedactHidesThePassword(t *testing.T) {
	if got := redact("postgres://u:secret@h:5432/db"); strings.Contains(got, "secret") {
		t.Errorf("redact = %q", got)
	}
}
