package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// Many inserts of one ID at once (replicas exchanging the same one-time
// code): exactly one token is made, every other is ErrTokenIDTaken.
func TestCreateTokenOnceMakesOneTokenPerID(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		u := &User{Username: "once", Email: "once@example.com", PasswordHash: "x", Role: access.Viewer}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		const id = "0b9c1b6e-5f5e-5d1a-9a57-3c1d2b6a4f1f"
		if ok, err := s.TokenExists(ctx, id); ok || err != nil {
			t.Fatalf("before: exists %v, %v", ok, err)
		}
		var wg sync.WaitGroup
		results := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() {
				exp := time.Now().Add(time.Hour)
				results <- s.CreateTokenOnce(ctx, &Token{ID: id, Name: "login:once", Role: "viewer", UserID: u.ID, ExpiresAt: &exp,
					Hash: fmt.Sprintf("%064d", i)})
			})
		}
		wg.Wait()
		close(results)
		made, taken := 0, 0
		for err := range results {
			switch {
			case err == nil:
				made++
			case errors.Is(err, ErrTokenIDTaken):
				taken++
			default:
				t.Errorf("CreateTokenOnce: %v", err)
			}
		}
		if made != 1 || taken != 7 {
			t.Errorf("%d made, %d refused as taken; want 1 and 7", made, taken)
		}
		if ok, err := s.TokenExists(ctx, id); !ok || err != nil {
			t.Errorf("after: exists %v, %v", ok, err)
		}
	})
}
