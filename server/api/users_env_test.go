package api

import (
	"context"
	"time"

	"github.com/ochestra-tech/kubeopera/server/store"
)

// disabledAdminToken makes a platform admin with a login token, then
// disables them (a second admin stays enabled), and returns the token.
func (e *env) disabledAdminToken() string {
	e.t.Helper()
	ctx := context.Background()
	var admins [2]*store.User
	for i, name := range []string{"gone-admin", "kept-admin"} {
		u, err := NewUser(name, name+"@example.com", "correct-horse-battery", PlatformAdmin)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := e.st.CreateUser(ctx, u); err != nil {
			e.t.Fatal(err)
		}
		admins[i] = u
	}
	tok, hash := NewToken()
	exp := time.Now().Add(time.Hour)
	if err := e.st.CreateToken(ctx, &store.Token{Name: "login:gone-admin", Role: string(PlatformAdmin), Hash: hash,
		UserID: admins[0].ID, ExpiresAt: &exp}); err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.SetUserDisabled(ctx, admins[0].ID, true); err != nil {
		e.t.Fatal(err)
	}
	return tok
}
