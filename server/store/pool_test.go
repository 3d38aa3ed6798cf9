package store

import (
	"context"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/testpg"
)

// Fifty concurrent clients reuse the pool's connections instead of opening
// and closing one every few requests (database/sql keeps 2 idle by default).
func TestPostgresPoolKeepsConnectionsForReuse(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, testpg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for round := range 3 {
		var wg sync.WaitGroup
		errs := make(chan error, 50)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := s.db.ExecContext(ctx, "SELECT pg_sleep(0.02)"); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	st := s.PoolStats()
	if st.MaxIdleClosed != 0 {
		t.Errorf("%d connections closed for want of idle room after 150 queries by 50 clients, want 0 (stats %+v)", st.MaxIdleClosed, st)
	}
	if st.MaxOpenConnections != DefaultPool.MaxOpen || st.OpenConnections > DefaultPool.MaxOpen {
		t.Errorf("pool allows %d and holds %d connections, want at most %d", st.MaxOpenConnections, st.OpenConnections, DefaultPool.MaxOpen)
	}
}

func TestUnavailableRecognisesConnectionFailures(t *testing.T) {
	s, err := Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?sslmode=disable")
	if err == nil {
		s.Close()
		t.Fatal("opened a database on port 1")
	}
	if !Unavailable(err) {
		t.Errorf("Unavailable(%v) = false", err)
	}
	if Unavailable(ErrNotFound) || Unavailable(nil) {
		t.Error("a missing row or no error counts as the database being down")
	}
}

// PostgreSQL going away under a connection (an administrator's or a
// crash's shutdown: here pg_terminate_backend) is the database being
// unavailable, a 503 that may be retried, not a 500; a statement timing
// out is not.
func TestUnavailableRecognisesTheServerGoingAway(t *testing.T) {
	s := openForTest(t, testpg.Database(t))
	ctx := context.Background()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pid int
	if err := conn.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.ExecContext(ctx, "SELECT 1")
	if err == nil || !Unavailable(err) {
		t.Errorf("a query on a terminated connection: Unavailable(%v) = false, want true", err)
	}
	_, err = s.db.ExecContext(ctx, "SET statement_timeout = 1; SELECT pg_sleep(1)")
	if err == nil || Unavailable(err) {
		t.Errorf("a statement timeout: Unavailable(%v) = true, want false (retrying will not cure it)", err)
	}
}
