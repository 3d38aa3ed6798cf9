package store

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

func TestTokenRoundTripAndTouch(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		// A login token names the user it was issued to (PostgreSQL reads it
		// with a statement of its own).
		u := &User{Username: "ci-user", Email: "ci@example.com", PasswordHash: "x", Role: access.Viewer}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		expires := clock.Now().Add(time.Hour)
		in := Token{Name: "ci", Role: "admin", Hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			UserID: u.ID, ExpiresAt: &expires} // a login token always expires
		if err := s.CreateToken(ctx, &in); err != nil {
			t.Fatal(err)
		}
		if in.ID == "" || in.CreatedAt != clock.Now() {
			t.Errorf("CreateToken set ID %q, CreatedAt %v", in.ID, in.CreatedAt)
		}
		got, err := s.TokenByHash(ctx, in.Hash)
		if err != nil {
			t.Fatal(err)
		}
		got.CreatedAt = utc(got.CreatedAt)
		if got.ExpiresAt != nil {
			e := utc(*got.ExpiresAt)
			got.ExpiresAt = &e
		}
		e := utc(*in.ExpiresAt)
		in.ExpiresAt = &e
		if !reflect.DeepEqual(*got, in) {
			t.Errorf("TokenByHash =\n %+v\nwant\n %+v (LastUsedAt nil)", *got, in)
		}

		// A time in another zone and with nanoseconds is kept to the microsecond.
		used := time.Date(2025, 7, 1, 9, 30, 0, 987654321, time.FixedZone("CEST", 2*3600))
		if err := s.TouchToken(ctx, in.ID, used); err != nil {
			t.Fatal(err)
		}
		got, err = s.TokenByHash(ctx, in.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if want := used.Truncate(time.Microsecond); got.LastUsedAt == nil || !got.LastUsedAt.Equal(want) {
			t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, want)
		}
	})
}

func TestTokenHashConflictAndCount(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		wantCount := func(want int) {
			t.Helper()
			n, err := s.CountTokens(ctx)
			if err != nil || n != want {
				t.Errorf("CountTokens = %d, %v; want %d", n, err, want)
			}
		}
		wantCount(0)
		for _, tok := range []*Token{{Name: "a", Role: "admin", Hash: "h1"}, {Name: "b", Role: "viewer", Hash: "h2"}} {
			if err := s.CreateToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		wantCount(2)
		err := s.CreateToken(ctx, &Token{Name: "c", Role: "viewer", Hash: "h1"})
		assertConflict(t, err, "hash", "an API token with the same hash already exists")
		wantCount(2)
	})
}
