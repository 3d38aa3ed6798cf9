package api

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// Another process holding the SQLite file's write lock: a change answers
// 503 with Retry-After well before a client gives up (not a 500 after
// 12 s), and /readyz says not ready until the lock is gone.
func TestLockedDatabaseAnswers503SoonAndReadyzSeesIt(t *testing.T) {
	e := newEnv(t, envOpts{})
	other, err := sql.Open(sqliteshim.ShimName, "file:"+e.dsn+"?_pragma=busy_timeout(100)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(http.MethodGet, "/readyz", "", nil); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while another process holds the write lock: %d %s, want 503", code, body)
	}
	start := time.Now()
	body := `{"label":"locked","kind":"access_key","accessKeyId":"` + testAccessKeyID + `","secretAccessKey":"` + testSecretKey + `"}`
	r := httptest.NewRequest(http.MethodPost, "/api/v1/credentials", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	resp := e.sendRaw(t, r, e.admin)
	took := time.Since(start)
	t.Logf("a write against a locked database: %d after %s, Retry-After %q", resp.StatusCode, took.Round(time.Millisecond), resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusServiceUnavailable || took > 8*time.Second || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a write against a locked database: %d after %s; want 503 with Retry-After within 8 s", resp.StatusCode, took)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(http.MethodGet, "/readyz", "", nil); code != http.StatusOK {
		t.Errorf("/readyz once the lock is gone: %d %s", code, body)
	}
	code, out := e.do(http.MethodPost, "/api/v1/credentials", e.admin, body)
	mustStatus(t, "the write once the lock is gone", code, out, http.StatusCreated)
}

// On PostgreSQL, a table another session holds locked answers a ping but
// holds every write: /readyz says not ready within 5 s, and ready again
// once the lock is gone.
func TestReadyzSeesALockedPostgresTable(t *testing.T) {
	e := newEnv(t, envOpts{postgres: true})
	other := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(e.dsn)))
	defer other.Close()
	ctx := context.Background()
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "LOCK TABLE clusters IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, body := e.do(http.MethodGet, "/readyz", "", nil)
	took := time.Since(start)
	if code != http.StatusServiceUnavailable || took > 5*time.Second {
		t.Errorf("/readyz while clusters is locked: %d %s after %s; want 503 within 5 s", code, body, took)
	}
	t.Logf("/readyz on a locked table: %d after %s", code, took.Round(time.Millisecond))
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if code, body := e.do(http.MethodGet, "/readyz", "", nil); code != http.StatusOK {
		t.Errorf("/readyz once the lock is gone: %d %s", code, body)
	}
}
