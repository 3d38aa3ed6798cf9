package store

import (
	"context"
	"testing"
	"time"

	"github.com/ochestra-tech/kubeopera/server/access"
)

// A token issued from another credential ends with it: revoking a login
// token revokes the kubeconfig tokens got with it, and the tokens got with
// those; ending a session (a sign-out, or an SSO sign-in that finds the
// user's groups no longer grant a role) revokes the tokens got in it.
// Tokens issued from other credentials keep working.
func TestTokensEndWithTheCredentialTheyWereIssuedFrom(t *testing.T) {
	eachDB(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := useFakeClock(s)
		exp := clock.Now().Add(time.Hour)
		u := &User{Username: "ada", Email: "ada@example.com", PasswordHash: "x", Role: access.Viewer}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		token := func(hash, parent string) *Token {
			t.Helper()
			tok := &Token{Name: hash, Role: "viewer", Hash: hash, UserID: u.ID, ExpiresAt: &exp, Parent: parent}
			if err := s.CreateToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
			return tok
		}
		session := func(hash string) string {
			t.Helper()
			now := clock.Now()
			if err := s.CreateSession(ctx, &Session{IDHash: hash, UserID: u.ID, CSRFToken: "c-" + hash,
				CreatedAt: now, LastSeenAt: now, ExpiresAt: exp}); err != nil {
				t.Fatal(err)
			}
			return hash
		}
		login := token("login", "")
		child := token("child", ParentToken(login.ID))
		token("grandchild", ParentToken(child.ID))
		other := token("other-login", "")
		token("other-child", ParentToken(other.ID))
		token("session-a-child", ParentSession(session("sess-a")))
		token("session-b-child", ParentSession(session("sess-b")))
		token("session-c-child", ParentSession(session("sess-c")))

		active := func(when string, want map[string]bool) {
			t.Helper()
			for hash, w := range want {
				tok, err := s.TokenByHash(ctx, hash)
				if err != nil || tok.Active(clock.Now()) != w {
					t.Errorf("%s: token %s active = %v (%v), want %v", when, hash, tok != nil && tok.Active(clock.Now()), err, w)
				}
			}
		}
		if _, err := s.RevokeToken(ctx, login.ID, ""); err != nil {
			t.Fatal(err)
		}
		active("after the login token was revoked", map[string]bool{"login": false, "child": false, "grandchild": false,
			"other-login": true, "other-child": true, "session-a-child": true})

		if err := s.DeleteSession(ctx, "sess-a"); err != nil {
			t.Fatal(err)
		}
		active("after session a was signed out", map[string]bool{"session-a-child": false, "session-b-child": true,
			"other-child": true})

		if n, err := s.DeleteSessionsOfUser(ctx, u.ID); err != nil || n != 2 {
			t.Fatalf("DeleteSessionsOfUser = %d, %v; want the 2 sessions left", n, err)
		}
		active("after the user was signed out everywhere", map[string]bool{"session-b-child": false,
			"session-c-child": false, "other-login": true, "other-child": true})
	})
}
