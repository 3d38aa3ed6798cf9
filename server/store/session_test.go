package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

func newSessionUser(t *testing.T, s *Store) *User {
	t.Helper()
	u := &User{Email: "ops@example.com", Username: "ops", PasswordHash: "h", Role: access.Viewer}
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestSessionExpiresWhenIdleOrPastItsAbsoluteLimit(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		u := newSessionUser(t, s)
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		const idle = 10 * time.Minute
		create := func(hash string, absolute time.Duration) {
			t.Helper()
			if err := s.CreateSession(ctx, &Session{IDHash: hash, UserID: u.ID, CSRFToken: "c-" + hash,
				CreatedAt: t0, LastSeenAt: t0, ExpiresAt: t0.Add(absolute)}); err != nil {
				t.Fatal(err)
			}
		}
		create("a", time.Hour)
		// Used every 9 minutes, the session outlives the idle limit...
		for i := 1; i <= 5; i++ {
			sess, got, err := s.UseSession(ctx, "a", t0.Add(time.Duration(i)*9*time.Minute), idle)
			if err != nil {
				t.Fatalf("use %d: %v", i, err)
			}
			if got.Username != "ops" || sess.CSRFToken != "c-a" {
				t.Errorf("use %d: user %q csrf %q", i, got.Username, sess.CSRFToken)
			}
		}
		// ...but not its absolute one.
		if _, _, err := s.UseSession(ctx, "a", t0.Add(time.Hour), idle); !errors.Is(err, ErrSessionExpired) {
			t.Fatalf("past the absolute expiry: %v, want ErrSessionExpired", err)
		}
		if _, _, err := s.UseSession(ctx, "a", t0.Add(time.Hour), idle); !errors.Is(err, ErrNotFound) {
			t.Fatalf("an expired session is deleted: %v, want ErrNotFound", err)
		}
		create("b", time.Hour)
		if _, _, err := s.UseSession(ctx, "b", t0.Add(idle), idle); !errors.Is(err, ErrSessionExpired) {
			t.Fatalf("idle for the idle limit: %v, want ErrSessionExpired", err)
		}
	})
}

func TestSessionRevokedAndCascadedAndSwept(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		u := newSessionUser(t, s)
		t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		for _, h := range []string{"old", "live"} {
			if err := s.CreateSession(ctx, &Session{IDHash: h, UserID: u.ID, CSRFToken: "c",
				CreatedAt: t0, LastSeenAt: t0, ExpiresAt: t0.Add(time.Hour)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteSession(ctx, "live"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.UseSession(ctx, "live", t0, time.Minute); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoked session: %v, want ErrNotFound", err)
		}
		if err := s.DeleteSession(ctx, "live"); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoking twice: %v, want ErrNotFound", err)
		}
		// A new session sweeps the ones already expired.
		later := t0.Add(2 * time.Hour)
		if err := s.CreateSession(ctx, &Session{IDHash: "new", UserID: u.ID, CSRFToken: "c",
			CreatedAt: later, LastSeenAt: later, ExpiresAt: later.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		n, err := s.db.NewSelect().Model((*Session)(nil)).Count(ctx)
		if err != nil || n != 1 {
			t.Errorf("sessions after the sweep: %d, %v; want only the new one", n, err)
		}
		if _, err := s.db.NewDelete().Model((*User)(nil)).Where("id = ?", u.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.UseSession(ctx, "new", later, time.Minute); !errors.Is(err, ErrNotFound) {
			t.Errorf("session of a deleted user: %v, want ErrNotFound", err)
		}
	})
}
