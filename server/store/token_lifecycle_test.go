package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// A token is revoked by its ID only: a second token named after the
// first one's ID neither makes the revocation ambiguous nor is revoked in
// its place.
func TestRevokeTokenByIDOnlyNeverByName(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		first := &Token{Name: "ci", Role: "viewer", Hash: "h1"}
		if err := s.CreateToken(ctx, first); err != nil {
			t.Fatal(err)
		}
		impostor := &Token{Name: first.ID, Role: "viewer", Hash: "h2"}
		if err := s.CreateToken(ctx, impostor); err != nil {
			t.Fatal(err)
		}
		got, err := s.RevokeToken(ctx, first.ID, "")
		if err != nil || got.ID != first.ID {
			t.Fatalf("RevokeToken(first's ID) = %+v, %v; want the first token revoked", got, err)
		}
		for hash, wantActive := range map[string]bool{"h1": false, "h2": true} {
			tok, err := s.TokenByHash(ctx, hash)
			if err != nil || tok.Active(clock.Now()) != wantActive {
				t.Errorf("token %s after the revocation: %+v, %v; want active %v", hash, tok, err, wantActive)
			}
		}
		if _, err := s.RevokeToken(ctx, "ci", ""); !errors.Is(err, ErrNotFound) {
			t.Errorf("RevokeToken by name = %v, want ErrNotFound (names are not keys)", err)
		}
		if _, err := s.RevokeToken(ctx, first.ID, ""); err != nil {
			t.Errorf("revoking a revoked token again: %v, want no error", err)
		}
	})
}

// A login token (one linked to a user) always expires, within the cap;
// the database refuses one without expiry even when the check is skipped.
func TestLoginTokenAlwaysExpiresWithinTheCap(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		u := &User{Username: "ada", Email: "ada@example.com", PasswordHash: "x", Role: access.Viewer}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		tooLate := clock.Now().Add(MaxLoginTokenTTL + time.Second)
		inTime := clock.Now().Add(MaxLoginTokenTTL)
		for _, c := range []struct {
			name    string
			expires *time.Time
			ok      bool
		}{
			{"never expiring is refused", nil, false},
			{"past the cap is refused", &tooLate, false},
			{"at the cap is accepted", &inTime, true},
		} {
			err := s.CreateToken(ctx, &Token{Name: "login:ada", Role: "viewer", Hash: "h-" + c.name, UserID: u.ID, ExpiresAt: c.expires})
			if (err == nil) != c.ok {
				t.Errorf("%s: CreateToken = %v", c.name, err)
			}
		}
		_, err := s.db.NewInsert().Model(&Token{ID: "raw", Name: "raw", Role: "viewer", Hash: "raw", UserID: u.ID, CreatedAt: clock.Now()}).Exec(ctx)
		if err == nil {
			t.Error("the database stored a login token without expiry")
		}
	})
}

// A user's login tokens are listed and revoked per user, and stop
// authenticating once the user is disabled or deleted.
func TestUserTokensListedAndStoppedWithTheirUser(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		exp := clock.Now().Add(time.Hour)
		var users [2]*User
		for i, name := range []string{"ada", "bob"} {
			users[i] = &User{Username: name, Email: name + "@example.com", PasswordHash: "x", Role: access.Viewer}
			if err := s.CreateUser(ctx, users[i]); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateToken(ctx, &Token{Name: "login:" + name, Role: "viewer", Hash: "h-" + name, UserID: users[i].ID, ExpiresAt: &exp}); err != nil {
				t.Fatal(err)
			}
		}
		list, err := s.ListUserTokens(ctx, users[0].ID)
		if err != nil || len(list) != 1 || list[0].Name != "login:ada" {
			t.Fatalf("ListUserTokens(ada) = %+v, %v; want ada's one token", list, err)
		}
		if _, err := s.RevokeToken(ctx, list[0].ID, users[1].ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("revoking ada's token as bob's: %v, want ErrNotFound", err)
		}
		if err := s.SetUserDisabled(ctx, users[0].ID, true); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, users[1].ID); err != nil {
			t.Fatal(err)
		}
		if list, _ := s.ListTokens(ctx); len(list) != 2 || list[0].RevokedAt == nil || list[1].RevokedAt == nil {
			t.Errorf("tokens after their users were disabled and deleted: %+v, want both listed, revoked", list)
		}
		for _, name := range []string{"ada", "bob"} {
			tok, err := s.TokenByHash(ctx, "h-"+name)
			if err != nil || tok.Active(clock.Now()) {
				t.Errorf("%s's token after the user was disabled or deleted: %+v, %v; want inactive", name, tok, err)
			}
			if active, err := s.TokenActive(ctx, tok.ID); err != nil || active {
				t.Errorf("TokenActive(%s's token) = %v, %v; want false", name, active, err)
			}
		}
	})
}

// A token whose user is disabled stops authenticating even when nothing
// revoked it (a user disabled by hand in the database, a token issued while
// the disable committed): every check asks whether the user is enabled.
func TestTokenOfADisabledUserIsRefusedWithoutRevocation(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		u := &User{Username: "ada", Email: "ada@example.com", PasswordHash: "x", Role: access.Viewer}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		exp := clock.Now().Add(time.Hour)
		tok := &Token{Name: "login:ada", Role: "viewer", Hash: "h-ada", UserID: u.ID, ExpiresAt: &exp}
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if _, err := s.db.NewUpdate().Model((*User)(nil)).Set("disabled_at = ?", clock.Now()).Where("id = ?", u.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := s.TokenByHash(ctx, "h-ada")
		if err != nil || got.RevokedAt != nil || got.Active(clock.Now()) {
			t.Errorf("TokenByHash = %+v, %v; want unrevoked but inactive", got, err)
		}
		if active, err := s.TokenActive(ctx, tok.ID); err != nil || active {
			t.Errorf("TokenActive = %v, %v; want false", active, err)
		}
		page, err := s.ListClusterPage(ctx, ClusterFilter{Limit: 10, ActiveToken: tok.ID})
		if err != nil || page.TokenActive {
			t.Errorf("the cluster page confirms the token: %v, %v; want refused", page.TokenActive, err)
		}
	})
}
