// Package testpg gives tests a real PostgreSQL: a fresh database per test on
// the server named by KUBEOPERA_TEST_POSTGRES_URL, which `make test` (through
// hack/with-postgres.sh) points at a throwaway PostgreSQL 15.
package testpg

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
)

// EnvURL names the variable holding the server's URL.
const EnvURL = "KUBEOPERA_TEST_POSTGRES_URL"

// URL returns the server URL. A test that needs PostgreSQL and has none
// fails, saying how to provide one: it is never skipped.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Fatalf("%s is not set: this test needs PostgreSQL. Run it through 'make test' or "+
			"'hack/with-postgres.sh go test ./...' (both start a throwaway PostgreSQL 15), "+
			"or set %s to a server you provide", EnvURL, EnvURL)
	}
	return u
}

// Database creates an empty database for this test, returns its URL, and
// drops it when the test ends.
func Database(t testing.TB) string {
	t.Helper()
	base := URL(t)
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
	defer admin.Close()
	suffix := make([]byte, 6)
	_, _ = rand.Read(suffix)
	name := "test_" + hex.EncodeToString(suffix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database on %s: %v", redact(base), err)
	}
	t.Cleanup(func() {
		db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// redact hides a password in a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
