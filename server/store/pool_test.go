package store

import (
	"context"
	"sync"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testpg"
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
