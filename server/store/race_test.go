package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ochestra-tech/kubeopera/internal/testkit/together"
)

// TestConcurrentHostRegistrationAdmitsExactlyOne is the guarantee the
// partial unique index gives: however many requests race to register a host
// cluster, one wins and the rest get a conflict, never another error.
func TestConcurrentHostRegistrationAdmitsExactlyOne(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		const racers = 50
		errs := make([]error, racers)
		together.Run(racers, func(i int) {
			errs[i] = s.CreateCluster(ctx, &Cluster{
				Name: fmt.Sprintf("host-%02d", i), Source: SourceSelfRegistered, IsHost: true,
			})
		})

		var won, conflicts int
		for i, err := range errs {
			var conflict *ConflictError
			switch {
			case err == nil:
				won++
			case errors.As(err, &conflict) && conflict.Field == "is_host":
				conflicts++
			default:
				t.Errorf("racer %d: %v", i, err)
			}
		}
		if won != 1 || conflicts != racers-1 {
			t.Errorf("%d registrations succeeded and %d conflicted; want 1 and %d", won, conflicts, racers-1)
		}
		var hosts int
		if err := s.db.NewRaw("SELECT count(*) FROM clusters WHERE is_host").Scan(ctx, &hosts); err != nil {
			t.Fatal(err)
		}
		if hosts != 1 {
			t.Errorf("%d host rows in clusters, want 1", hosts)
		}
	})
}
