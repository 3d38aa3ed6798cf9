package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

func TestSignInExternalMakesTheUserOnceAndFollowsTheRole(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		first := ExternalSignIn{Issuer: "https://idp.example", Subject: "sub-1", Username: "ada", Email: "Ada@Example.com",
			Role: access.PlatformAdmin}
		u, created, err := s.SignInExternal(ctx, first)
		if err != nil || !created || u.Role != access.PlatformAdmin || u.Email != "ada@example.com" || u.PasswordHash != "" {
			t.Fatalf("first sign-in = %+v, created %v, %v; want a new platform-admin without a password", u, created, err)
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		sess := &Session{IDHash: "h1", UserID: u.ID, CSRFToken: "c", CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
		again := first
		again.Username, again.Email, again.Role = "renamed", "other@example.com", access.Viewer
		u2, created, err := s.SignInExternal(ctx, again)
		if err != nil || created || u2.ID != u.ID || u2.Username != "ada" || u2.Role != access.Viewer {
			t.Fatalf("second sign-in = %+v, created %v, %v; want the same user, renamed not, now a viewer", u2, created, err)
		}
		_, seen, err := s.UseSession(ctx, "h1", now, time.Hour)
		if err != nil || seen.Role != access.Viewer {
			t.Errorf("the open session's user after the role change = %+v, %v; want the viewer role at once", seen, err)
		}
		if n, err := s.DeleteSessionsOfUser(ctx, u.ID); err != nil || n != 1 {
			t.Errorf("DeleteSessionsOfUser = %d, %v; want 1 session ended", n, err)
		}
		if _, _, err := s.UseSession(ctx, "h1", now, time.Hour); !errors.Is(err, ErrNotFound) {
			t.Errorf("UseSession after DeleteSessionsOfUser: %v; want ErrNotFound", err)
		}
	})
}

func TestSignInExternalRefusesATakenUsername(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		if err := s.CreateUser(ctx, &User{Username: "ada", Email: "ada@local", PasswordHash: "x", Role: access.Viewer}); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.SignInExternal(ctx, ExternalSignIn{Issuer: "https://idp.example", Subject: "s", Username: "ada",
			Email: "ada@idp.example", Role: access.Viewer})
		var c *ConflictError
		if !errors.As(err, &c) || c.Field != "username" {
			t.Fatalf("SignInExternal with a local user's username: %v; want a username conflict", err)
		}
		if _, err := s.UserByIdentity(ctx, "https://idp.example", "s"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a refused first sign-in left a link behind: %v", err)
		}
	})
}
